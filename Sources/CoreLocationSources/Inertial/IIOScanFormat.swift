import Foundation

/// The storage format of one IIO buffer channel, as its `scan_elements/<channel>_type` file states it
/// (Linux `Documentation/ABI/testing/sysfs-bus-iio`, "scan_elements/in_..._type"):
/// `[be|le]:[s|u]bits/storagebits[Xrepeat]>>shift`, e.g. `le:s16/16>>0` (BMI160), `be:s16/16>>0` (MPU-6050),
/// `be:s12/16>>4` (a 12-bit accelerometer left-justified in 16 bits), `le:s64/64>>0` (the timestamp).
///
/// Decoding one element: read `storageBits / 8` bytes in the stated byte order, shift right by `shift`, keep the low
/// `realBits`, sign-extend them when signed.
public struct IIOScanFormat: Sendable, Hashable, CustomStringConvertible {
    public var isBigEndian: Bool
    public var isSigned: Bool
    public var realBits: Int
    public var storageBits: Int
    public var shift: Int
    /// How many values of this storage size the element holds (`X2`…); 1 for inertial channels.
    public var repeatCount: Int

    public init(isBigEndian: Bool, isSigned: Bool, realBits: Int, storageBits: Int, shift: Int, repeatCount: Int = 1) {
        self.isBigEndian = isBigEndian
        self.isSigned = isSigned
        self.realBits = realBits
        self.storageBits = storageBits
        self.shift = shift
        self.repeatCount = repeatCount
    }

    /// Parses the kernel's text; nil unless the storage is 8, 16, 32 or 64 bits, the real bits fit in it above the
    /// shift, and the repeat count is at least 1.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let colon = trimmed.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard colon.count == 2 else { return nil }
        switch colon[0].lowercased() {
        case "le": isBigEndian = false
        case "be": isBigEndian = true
        default: return nil
        }
        var rest = Substring(colon[1])
        guard let sign = rest.first else { return nil }
        switch sign {
        case "s", "S": isSigned = true
        case "u", "U": isSigned = false
        default: return nil
        }
        rest = rest.dropFirst()
        let shiftParts = rest.split(separator: ">", omittingEmptySubsequences: true)
        guard rest.contains(">>"), shiftParts.count == 2, let shift = Int(shiftParts[1]) else { return nil }
        let bitsParts = shiftParts[0].split(separator: "/", omittingEmptySubsequences: false)
        guard bitsParts.count == 2, let realBits = Int(bitsParts[0]) else { return nil }
        let storageParts = bitsParts[1].split(separator: "X", omittingEmptySubsequences: false)
        guard let storageBits = storageParts.first.flatMap({ Int($0) }), storageParts.count <= 2 else { return nil }
        let repeatCount = storageParts.count == 2 ? Int(storageParts[1]) : 1
        guard let repeatCount, repeatCount >= 1, [8, 16, 32, 64].contains(storageBits), realBits >= 1,
            shift >= 0, realBits + shift <= storageBits
        else { return nil }
        self.realBits = realBits
        self.storageBits = storageBits
        self.shift = shift
        self.repeatCount = repeatCount
    }

    public var storageBytes: Int { storageBits / 8 }

    /// The largest and smallest raw values the converter can give: a sample at either is clipped (saturated).
    public var rawRange: ClosedRange<Int64> {
        if isSigned {
            let half = Int64(1) << (realBits - 1)
            return realBits == 64 ? Int64.min...Int64.max : -half...(half - 1)
        }
        return realBits >= 63 ? 0...Int64.max : 0...((Int64(1) << realBits) - 1)
    }

    /// The first value of the element whose storage starts at `offset` in `bytes` (the caller checks the length).
    public func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        var word: UInt64 = 0
        for i in 0..<storageBytes {
            let byte = UInt64(bytes[offset + (isBigEndian ? i : storageBytes - 1 - i)])
            word = word << 8 | byte
        }
        word >>= UInt64(shift)
        if realBits < 64 {
            word &= (UInt64(1) << UInt64(realBits)) - 1
            if isSigned, word & (UInt64(1) << UInt64(realBits - 1)) != 0 {
                word |= ~((UInt64(1) << UInt64(realBits)) - 1)
            }
        }
        return Int64(bitPattern: word)
    }

    public var description: String {
        "\(isBigEndian ? "be" : "le"):\(isSigned ? "s" : "u")\(realBits)/\(storageBits)"
            + (repeatCount > 1 ? "X\(repeatCount)" : "") + ">>\(shift)"
    }
}

/// Where each enabled channel sits in one scan (one record of `/dev/iio:deviceN`): channels in `index` order, each
/// aligned to its own storage size (so the 64-bit timestamp is aligned to 8), the scan padded to a multiple of its
/// largest element (the kernel's `iio_compute_scan_bytes`).
public struct IIOScanLayout: Sendable, Hashable {
    public struct Element: Sendable, Hashable {
        /// The channel's file stem, e.g. "in_accel_x", "in_timestamp".
        public var name: String
        public var index: Int
        public var format: IIOScanFormat
        /// Byte offset in the scan.
        public var offset: Int
    }

    /// In scan order.
    public let elements: [Element]
    /// Bytes per scan.
    public let scanBytes: Int

    /// Lays out `channels` (any order).
    public init(_ channels: [(name: String, index: Int, format: IIOScanFormat)]) {
        var offset = 0
        var largest = 1
        var elements: [Element] = []
        for channel in channels.sorted(by: { ($0.index, $0.name) < ($1.index, $1.name) }) {
            let size = channel.format.storageBytes
            offset = (offset + size - 1) / size * size
            elements.append(Element(name: channel.name, index: channel.index, format: channel.format, offset: offset))
            offset += size * channel.format.repeatCount
            largest = max(largest, size)
        }
        self.elements = elements
        scanBytes = (offset + largest - 1) / largest * largest
    }

    /// The position of channel `name` in `elements`.
    public func position(of name: String) -> Int? { elements.firstIndex { $0.name == name } }
}

/// Cuts a byte stream from an IIO buffer into scans and decodes each: a read that ends inside a scan (a truncated
/// read) keeps the partial scan and completes it with the next read's bytes, so how the stream is chunked never
/// changes what is decoded.
public struct IIOBufferDecoder: Sendable, Hashable {
    public let layout: IIOScanLayout
    private var pending: [UInt8] = []

    public init(layout: IIOScanLayout) {
        self.layout = layout
    }

    /// Bytes of an incomplete scan waiting for the rest.
    public var pendingBytes: Int { pending.count }

    /// Forgets an incomplete scan (the device was reopened: its rest will never come).
    public mutating func reset() { pending.removeAll() }

    /// The complete scans in `pending + bytes`, each as one value per element of `layout.elements`.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [[Int64]] {
        pending.append(contentsOf: bytes)
        let size = layout.scanBytes
        guard size > 0, pending.count >= size else { return [] }
        let count = pending.count / size
        var scans: [[Int64]] = []
        scans.reserveCapacity(count)
        pending.withUnsafeBytes { raw in
            for scan in 0..<count {
                let base = scan * size
                scans.append(layout.elements.map { $0.format.decode(raw, at: base + $0.offset) })
            }
        }
        pending.removeFirst(count * size)
        return scans
    }
}
