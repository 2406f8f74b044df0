import Foundation

extension Gazetteer {
    /// Reverse-geocodes many coordinates (degrees, WGS84) at once: element i of the answer is what
    /// `reverse(latitude:longitude:language:)` answers for coordinate i — the same `GeocodedPlace`, every field.
    ///
    /// The points are looked up in the order of a Z-order (Morton) curve over 0.1° cells, not in the input
    /// order, so that points near each other on the ground are looked up one after the other and share the
    /// land raster's rows, the place grid's slots and the country trees' upper nodes in the processor's caches;
    /// the answers are then built in the input order.
    /// Throws `.invalidInput` (and answers nothing) if any coordinate is NaN, infinite or out of range.
    public func reverse(_ coordinates: [(latitude: Double, longitude: Double)], language: String? = nil)
        throws(GeocodingError) -> [GeocodedPlace?]
    {
        for (index, point) in coordinates.enumerated() {
            guard point.latitude.isFinite, point.longitude.isFinite, abs(point.latitude) <= 90,
                  abs(point.longitude) <= 180
            else {
                throw GeocodingError(.invalidInput, "coordinate \(index) is not a valid latitude/longitude")
            }
        }
        // First the look-ups, in visiting order, into a small array of indices (28 bytes an element, one scattered
        // write each); then the answers, in input order, each initialised in place: no element is first set to nil
        // and then replaced (destroying an optional `GeocodedPlace` goes through its value witnesses), and the
        // 280-byte answers are written sequentially, not scattered.
        var locations = [ReverseLocation?](repeating: nil, count: coordinates.count)
        locations.withUnsafeMutableBufferPointer { buffer in
            var previous: ReverseLocation?
            for index in Self.visitingOrder(coordinates) {
                let point = coordinates[index]
                let location = locate(latitude: point.latitude, longitude: point.longitude, hint: previous)
                buffer[index] = location
                if location != nil { previous = location }
            }
        }
        let answers = [GeocodedPlace?](unsafeUninitializedCapacity: coordinates.count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            for index in coordinates.indices {
                let point = coordinates[index]
                (base + index).initialize(to: locations[index].map {
                    place(for: $0, latitude: point.latitude, longitude: point.longitude, language: language)
                })
            }
            initialized = coordinates.count
        }
        return answers
    }

    /// The input indices in the order of the Z-order curve of their 0.1° cells (ties: input order): a permutation.
    static func visitingOrder(_ coordinates: [(latitude: Double, longitude: Double)]) -> [Int] {
        // An index must fit the key's low 32 bits; a batch that large is visited in input order.
        guard coordinates.count <= Int(UInt32.max) else { return Array(coordinates.indices) }
        var keys = [UInt64]()
        keys.reserveCapacity(coordinates.count)
        for (index, point) in coordinates.enumerated() {
            let row = UInt64(min(1_799, max(0, Int((point.latitude + 90) * 10))))
            let column = UInt64(min(3_599, max(0, Int((point.longitude + 180) * 10))))
            keys.append(interleave(row, column) << 32 | UInt64(index))
        }
        if keys.count < 256 {
            keys.sort()
        } else {
            radixSort(&keys)
        }
        return keys.map { Int($0 & 0xFFFF_FFFF) }
    }

    /// Sorts keys whose Morton code (bits 32–55) is below 2²⁴ by that code, stably (so by index among equal
    /// codes):
    /// three passes of 8 bits, a few nanoseconds a key where `sort()` took ~50 (3 % of a batch).
    static func radixSort(_ keys: inout [UInt64]) {
        var other = [UInt64](repeating: 0, count: keys.count)
        for shift in stride(from: UInt64(32), to: 56, by: 8) {
            var counts = [Int](repeating: 0, count: 257)
            for key in keys { counts[Int((key >> shift) & 0xFF) + 1] += 1 }
            for digit in 0..<256 { counts[digit + 1] += counts[digit] }
            keys.withUnsafeBufferPointer { source in
                other.withUnsafeMutableBufferPointer { target in
                    for key in source {
                        let digit = Int((key >> shift) & 0xFF)
                        target[counts[digit]] = key
                        counts[digit] += 1
                    }
                }
            }
            swap(&keys, &other)
        }
    }

    /// The Morton code of a cell: the bits of `row` and `column` (each below 2¹⁶) interleaved.
    static func interleave(_ row: UInt64, _ column: UInt64) -> UInt64 {
        func spread(_ value: UInt64) -> UInt64 {
            var x = value & 0xFFFF
            x = (x | x << 8) & 0x00FF_00FF
            x = (x | x << 4) & 0x0F0F_0F0F
            x = (x | x << 2) & 0x3333_3333
            x = (x | x << 1) & 0x5555_5555
            return x
        }
        return spread(row) << 1 | spread(column)
    }
}
