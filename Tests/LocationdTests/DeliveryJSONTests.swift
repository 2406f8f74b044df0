import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationRuntime
import CoreLocationSources
import Foundation
import Testing

/// `DeliveryJSON` against its oracle, Foundation's `JSONEncoder` with the protocol's settings: the same
/// bytes for every delivery, and the bytes decode back to the delivery.
@Suite struct DeliveryJSONTests {
    /// Values where number formatting goes wrong: signed zero, integers (no ".0"), exponents both ways,
    /// subnormals, the extremes, and the non-finite ones the protocol writes as strings.
    static let awkward: [Double] = [
        0, -0.0, -1, 1, 100, 0.1, 1e15, 1e16, 1e20, 1.5e-7, .leastNonzeroMagnitude, .leastNormalMagnitude,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 123_456_789.123_456_78, 786_000_000.1,
        .infinity, -.infinity, .nan,
    ]

    static func randomDouble(_ generator: inout SplitMix64) -> Double {
        switch generator.next() % 4 {
        case 0: awkward[Int(generator.next() % UInt64(awkward.count))]
        case 1: Double(bitPattern: generator.next())  // any bit pattern: NaNs with payloads included
        case 2: (generator.nextUnit() - 0.5) * 360
        default: (generator.nextUnit() * 1e6).rounded() / 1e3
        }
    }

    static func randomDelivery(_ generator: inout SplitMix64) -> Delivery {
        let fixes = (0..<Int(generator.next() % 4)).map { _ in
            Fix(
                latitude: randomDouble(&generator), longitude: randomDouble(&generator),
                altitude: randomDouble(&generator), ellipsoidalAltitude: randomDouble(&generator),
                horizontalAccuracy: randomDouble(&generator), verticalAccuracy: randomDouble(&generator),
                course: randomDouble(&generator), courseAccuracy: randomDouble(&generator),
                speed: randomDouble(&generator), speedAccuracy: randomDouble(&generator),
                timestamp: Date(timeIntervalSinceReferenceDate: randomDouble(&generator)),
                floor: generator.next() % 2 == 0 ? nil : [0, -3, 7, .max, .min][Int(generator.next() % 5)],
                isSimulated: generator.next() % 2 == 0, isFromAccessory: generator.next() % 2 == 0,
                isFused: generator.next() % 2 == 0)
        }
        return Delivery(
            fixes: fixes, isStationary: generator.next() % 2 == 0, accuracyLimited: generator.next() % 2 == 0,
            isRequestedLocation: generator.next() % 2 == 0)
    }

    @Test func writesTheEncodersBytesForRandomDeliveries() throws {
        var generator = SplitMix64(seed: 20_261_124)
        for _ in 0..<5_000 {
            let delivery = Self.randomDelivery(&generator)
            let expected = try DaemonProtocol.encode(WireDelivery(delivery))
            let written = DeliveryJSON.encode(WireDelivery(delivery))
            #expect(
                written == expected,
                "\(String(decoding: written, as: UTF8.self)) != \(String(decoding: expected, as: UTF8.self))")
            if written != expected { return }
        }
    }

    /// A fix as a receiver gives it decodes back to itself (equality fails on NaN by definition, so the
    /// values here are finite).
    @Test func decodesBackToTheDelivery() throws {
        let fix = Fix(
            latitude: 48.858_370_1, longitude: 2.294_481_3, altitude: 35.2, ellipsoidalAltitude: 79.6,
            horizontalAccuracy: 4.7, verticalAccuracy: 8.1, course: 123.4, speed: 1.23,
            timestamp: Date(timeIntervalSinceReferenceDate: 786_000_000.1), floor: -2, isFromAccessory: true)
        let delivery = Delivery(fixes: [fix, fix], isStationary: true, accuracyLimited: false, isRequestedLocation: true)
        let written = DeliveryJSON.encode(WireDelivery(delivery))
        #expect(Delivery(try DaemonProtocol.decode(WireDelivery.self, from: written)) == delivery)
        #expect(String(decoding: written, as: UTF8.self).contains(#""courseAccuracy":-1,"#))
        #expect(String(decoding: written, as: UTF8.self).contains(#""floor":-2,"#))
        #expect(!String(decoding: written, as: UTF8.self).contains("isFused"), "written only when true")
    }

    /// A fused fix (decision 0095) says so on the wire, between `isFromAccessory` and `isSimulated` (sorted keys), and
    /// decodes back fused.
    @Test func aFusedFixSaysSo() throws {
        var fix = Fix(latitude: 45.2, longitude: 13.6, horizontalAccuracy: 3.1, timestamp: Date(timeIntervalSinceReferenceDate: 0))
        fix.isFused = true
        let delivery = Delivery(fixes: [fix], isStationary: false, accuracyLimited: false, isRequestedLocation: false)
        let written = DeliveryJSON.encode(WireDelivery(delivery))
        #expect(String(decoding: written, as: UTF8.self).contains(#""isFromAccessory":false,"isFused":true,"isSimulated""#))
        #expect(written == (try DaemonProtocol.encode(WireDelivery(delivery))))
        #expect(Delivery(try DaemonProtocol.decode(WireDelivery.self, from: written)).fixes.first?.isFused == true)
    }
}
