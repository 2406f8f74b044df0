import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a device's buffer attributes and scan elements are (Linux `Documentation/ABI/testing/sysfs-bus-iio`): the
/// first buffer's `buffer/` + `scan_elements/`, which every kernel with buffers has (since 5.11 kept for buffer 0),
/// else buffers v2's `buffer0/`, which holds both (`buffer0/enable`, `buffer0/length`, `buffer0/in_*_en`).
struct IIOBufferLayout: Sendable, Hashable {
    /// The directory of `enable` and `length`, relative to the device.
    let buffer: String
    /// The directory of the scan elements (`<channel>_en`, `_index`, `_type`), relative to the device.
    let scanElements: String

    static let legacy = IIOBufferLayout(buffer: "buffer", scanElements: "scan_elements")
    static let v2 = IIOBufferLayout(buffer: "buffer0", scanElements: "buffer0")

    /// The layout of the device at `path`: legacy when it has `scan_elements/`, else v2 when it has `buffer0/`,
    /// else nil (no buffer).
    static func of(_ path: String) -> IIOBufferLayout? {
        var isDirectory: ObjCBool = false
        for layout in [legacy, v2] {
            if FileManager.default.fileExists(atPath: path + "/" + layout.scanElements, isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                return layout
            }
        }
        return nil
    }
}

/// One IIO device read through its buffer (`/dev/iio:deviceN`), for the channel types of an inertial unit: what
/// makes it usable (`check`), turning it on (`open`: sampling frequency, trigger, scan elements, buffer length,
/// enable), reading what has arrived, and turning it off (`close`: `enable` 0, the trigger as it was before `open`).
///
/// The node is opened non-blocking and read on the owner's scheduler: a read takes what the kernel holds (the
/// buffer keeps `bufferSeconds` of scans), so a test can stand a regular file or a FIFO in for the node.
struct IIOBufferedDevice: Sendable {
    let device: IIODevice
    /// "accel", "anglvel" or both.
    let types: [String]
    let node: String
    let layout: IIOBufferLayout
    /// `trigger/current_trigger` before `open` set it ("" for none), put back by `close`; nil when `open` left it
    /// as it was (it was already the one used, or the device has no trigger).
    private(set) var previousTrigger: String?
    private(set) var decoder: IIOBufferDecoder
    /// The IIO clock the scan timestamps are on (`current_timestamp_clock`), e.g. "realtime", "monotonic".
    private(set) var timestampClock: String
    /// The sampling frequency read back after setting it, Hz; nil when the device has none.
    private(set) var samplingFrequency: Double?
    private var descriptor: Int32 = -1

    /// Seconds of scans the kernel buffer holds between two reads (`buffer/length`).
    static let bufferSeconds = 2.0
    /// The most bytes taken from the node in one read call and in one poll.
    static let readChunk = 4096
    static let pollLimit = 1 << 16

    static func axisChannels(_ types: [String]) -> [String] {
        types.flatMap { type in ["x", "y", "z"].map { "in_\(type)_\($0)" } }
    }

    /// Why the device cannot be read through its buffer by this process; nil when it can: the scan elements of
    /// every axis, a writable `buffer/enable`, a trigger (the current one, or the driver's own data-ready trigger
    /// `<name>-devN`) unless the device has no `trigger/` (a hardware FIFO: st_lsm6dsx), and a readable node.
    static func check(_ device: IIODevice, types: [String], sysfsRoot: String, devRoot: String) -> String? {
        let fm = FileManager.default
        guard let layout = IIOBufferLayout.of(device.path) else { return "\(device.deviceName) has no buffer" }
        let scan = device.path + "/" + layout.scanElements + "/"
        for channel in axisChannels(types) {
            for suffix in ["_en", "_index", "_type"] where !fm.fileExists(atPath: scan + channel + suffix) {
                return "\(device.deviceName) has no buffer (\(layout.scanElements)/\(channel)\(suffix))"
            }
        }
        guard fm.isWritableFile(atPath: device.path + "/" + layout.buffer + "/enable") else {
            return "\(device.deviceName): \(layout.buffer)/enable is not writable by this user"
        }
        if fm.fileExists(atPath: device.path + "/trigger/current_trigger"),
            trigger(for: device, sysfsRoot: sysfsRoot) == nil
        {
            return "\(device.deviceName) has no trigger"
        }
        let node = devRoot + "/" + device.deviceName
        guard fm.fileExists(atPath: node) else { return "\(node) does not exist" }
        guard fm.isReadableFile(atPath: node) else { return "\(node) is not readable by this user" }
        return nil
    }

    /// The trigger to use: the current one when set, else the one the driver registered for this device (named
    /// `<name>-dev<N>` by `iio_trigger_alloc`'s convention), else nil.
    static func trigger(for device: IIODevice, sysfsRoot: String) -> String? {
        let current =
            (try? String(contentsOfFile: device.path + "/trigger/current_trigger", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !current.isEmpty { return current }
        let number = device.deviceName.dropFirst("iio:device".count)
        let directory = sysfsRoot + "/bus/iio/devices"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.filter({ $0.hasPrefix("trigger") }).sorted() {
            let name =
                (try? String(contentsOfFile: "\(directory)/\(entry)/name", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if name.hasSuffix("-dev\(number)") { return name }
        }
        return nil
    }

    /// Turns the buffer on and opens the node: buffer off first (a previous run may have left it on), the sampling
    /// frequency nearest `rate` from above among the available ones, the trigger (the one there before is kept for
    /// `close`, and put back if opening fails after it), only this unit's axes and the timestamp enabled (every
    /// other scan element off, so the scan holds what the layout says), a buffer of `bufferSeconds`, buffer on.
    static func open(
        _ device: IIODevice, types: [String], rate: Double, sysfsRoot: String, devRoot: String
    ) throws(IIOError) -> IIOBufferedDevice {
        let path = device.path
        guard let layout = IIOBufferLayout.of(path) else {
            throw IIOError(message: "\(device.deviceName) has no buffer")
        }
        try write("0", to: path + "/" + layout.buffer + "/enable", device)
        let frequency = setSamplingFrequency(device, types: types, rate: rate)
        let triggerFile = path + "/trigger/current_trigger"
        var previousTrigger: String?
        if FileManager.default.fileExists(atPath: triggerFile) {
            guard let trigger = trigger(for: device, sysfsRoot: sysfsRoot) else {
                throw IIOError(message: "\(device.deviceName) has no trigger")
            }
            let before = try text(triggerFile, device)
            if before != trigger {
                try write(trigger, to: triggerFile, device)
                previousTrigger = before
            }
        }
        do {
            var opened = try enable(
                device, types: types, layout: layout, rate: rate, frequency: frequency, devRoot: devRoot)
            opened.previousTrigger = previousTrigger
            return opened
        } catch {
            if let previousTrigger { try? write(previousTrigger, to: triggerFile, device) }
            throw error
        }
    }

    /// `open` after the trigger: the scan elements, the buffer's length and clock, the buffer on and the node opened.
    private static func enable(
        _ device: IIODevice, types: [String], layout: IIOBufferLayout, rate: Double, frequency: Double?,
        devRoot: String
    ) throws(IIOError) -> IIOBufferedDevice {
        let path = device.path
        let enableFile = path + "/" + layout.buffer + "/enable"
        let scan = path + "/" + layout.scanElements + "/"
        let wanted = Set(axisChannels(types) + ["in_timestamp"])
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: scan)) ?? []
        var channels: [(name: String, index: Int, format: IIOScanFormat)] = []
        for entry in entries.sorted() where entry.hasSuffix("_en") {
            let channel = String(entry.dropLast(3))
            let on = wanted.contains(channel)
            try write(on ? "1" : "0", to: scan + entry, device)
            guard on else { continue }
            let indexText = try text(scan + channel + "_index", device)
            let typeText = try text(scan + channel + "_type", device)
            guard let index = Int(indexText), let format = IIOScanFormat(typeText) else {
                throw IIOError(message: "\(device.deviceName): \(channel) has index \(indexText), type \(typeText)")
            }
            channels.append((channel, index, format))
        }
        guard Set(channels.map(\.name)).isSuperset(of: axisChannels(types)) else {
            throw IIOError(message: "\(device.deviceName): scan elements missing")
        }
        let length = max(16, Int(((frequency ?? rate) * bufferSeconds).rounded(.up)))
        let lengthFile = path + "/" + layout.buffer + "/length"
        if FileManager.default.fileExists(atPath: lengthFile) { try write(String(length), to: lengthFile, device) }
        // Monotonic scan timestamps, where the driver lets us choose: a realtime clock steps with NTP.
        let clockFile = path + "/current_timestamp_clock"
        if FileManager.default.isWritableFile(atPath: clockFile) { try? write("monotonic", to: clockFile, device) }
        let clock = (try? text(clockFile, device)) ?? "realtime"
        try write("1", to: enableFile, device)
        let node = devRoot + "/" + device.deviceName
        let fd = Glibc.open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            try? write("0", to: enableFile, device)
            throw IIOError(message: "cannot open \(node): \(reason)")
        }
        var opened = IIOBufferedDevice(
            device: device, types: types, node: node, layout: layout,
            decoder: IIOBufferDecoder(layout: IIOScanLayout(channels)), timestampClock: clock,
            samplingFrequency: frequency)
        opened.descriptor = fd
        return opened
    }

    private init(
        device: IIODevice, types: [String], node: String, layout: IIOBufferLayout, decoder: IIOBufferDecoder,
        timestampClock: String, samplingFrequency: Double?
    ) {
        self.device = device
        self.types = types
        self.node = node
        self.layout = layout
        self.decoder = decoder
        self.timestampClock = timestampClock
        self.samplingFrequency = samplingFrequency
    }

    /// Writes the device's sampling frequency (`sampling_frequency`, else each type's `in_<type>_sampling_frequency`):
    /// the smallest listed in the matching `_available` file that is ≥ `rate`, else the largest listed, else `rate`
    /// itself; returns the value read back (what the driver chose), nil when the device has no such attribute.
    static func setSamplingFrequency(_ device: IIODevice, types: [String], rate: Double) -> Double? {
        var reached: [Double] = []
        for file in frequencyFiles(device, types: types) {
            try? write(format(choice(device, file, rate: rate)), to: device.path + "/" + file, device)
            if let value = try? device.number(file), value > 0 { reached.append(value) }
        }
        return reached.min()
    }

    /// The sampling frequency `setSamplingFrequency` would ask for, without writing it (for listings); nil when the
    /// device has no such attribute.
    static func plannedFrequency(_ device: IIODevice, types: [String], rate: Double) -> Double? {
        frequencyFiles(device, types: types).map { choice(device, $0, rate: rate) }.min()
    }

    /// The device's `sampling_frequency` when it has one, else the per-type ones it has.
    private static func frequencyFiles(_ device: IIODevice, types: [String]) -> [String] {
        let files = ["sampling_frequency"] + types.map { "in_\($0)_sampling_frequency" }
        let present = files.filter { FileManager.default.fileExists(atPath: device.path + "/" + $0) }
        return present.first == "sampling_frequency" ? ["sampling_frequency"] : present
    }

    private static func choice(_ device: IIODevice, _ file: String, rate: Double) -> Double {
        let available = ((try? String(contentsOfFile: device.path + "/" + file + "_available", encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }.filter { $0 > 0 && $0.isFinite }
        return available.filter { $0 >= rate }.min() ?? available.max() ?? rate
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The bytes that have arrived (up to `pollLimit`); throws when the node cannot be read.
    mutating func readAvailable() throws(IIOError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: Self.readChunk)
        while bytes.count < Self.pollLimit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK {
                throw IIOError(message: "cannot read \(node): \(String(cString: strerror(errno)))")
            }
            break
        }
        return bytes
    }

    /// Decodes bytes into scans (see `IIOBufferDecoder`).
    mutating func decode(_ bytes: [UInt8]) -> [[Int64]] { decoder.feed(bytes) }

    /// Buffer off (when the device is still there), the trigger put back as `open` found it, and the node closed.
    mutating func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
        try? Self.write("0", to: device.path + "/" + layout.buffer + "/enable", device)
        if let previousTrigger {
            try? Self.write(previousTrigger, to: device.path + "/trigger/current_trigger", device)
            self.previousTrigger = nil
        }
    }

    /// Writes a sysfs attribute as `echo value > attribute` does, without creating it (no `O_CREAT`: a vanished
    /// attribute is an error).
    static func write(_ text: String, to path: String, _ device: IIODevice) throws(IIOError) {
        let fd = Glibc.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else {
            throw IIOError(message: "\(device.deviceName): cannot write \((path as NSString).lastPathComponent)")
        }
        defer { _ = Glibc.close(fd) }
        let bytes = Array((text + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw IIOError(
                message: "\(device.deviceName): \((path as NSString).lastPathComponent) refused \(text): "
                    + String(cString: strerror(errno)))
        }
    }

    private static func text(_ path: String, _ device: IIODevice) throws(IIOError) -> String {
        guard let value = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw IIOError(message: "\(device.deviceName): cannot read \((path as NSString).lastPathComponent)")
        }
        return value.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
