import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

let gnss = SourceDescriptor(id: SourceID("gnss"), kind: "simulated", expectedAccuracy: 5, powerCost: 100, isSimulated: true)
let coarse = SourceDescriptor(id: SourceID("coarse"), kind: "simulated", expectedAccuracy: 1500, powerCost: 5, isSimulated: true)
let app = ClientID(1)
let whenInUse = ClientAuthorization(level: .whenInUse)
let reducedWhenInUse = ClientAuthorization(level: .whenInUse, accuracy: .reduced)

func fix(_ lat: Double, _ lon: Double, accuracy: Double = 5, at seconds: Double = 0) -> Fix {
    Fix(latitude: lat, longitude: lon, horizontalAccuracy: accuracy, timestamp: Date(timeIntervalSince1970: 1_700_000_000 + seconds))
}

/// A point `metres` east of (lat, lon) along the geodesic.
func east(of lat: Double, _ lon: Double, metres: Double) -> (Double, Double) {
    let p = Geodesic.wgs84.direct(latitude1: lat, longitude1: lon, azimuth1: 90, distance: metres)
    return (p.latitude, p.longitude)
}

/// A deterministic generator (SplitMix64) so that every property test replays.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func driver(_ sources: [SourceDescriptor] = [gnss], authorization: ClientAuthorization = whenInUse) -> EngineDriver {
    var d = EngineDriver(engine: LocationEngine(sources: sources))
    d.send(.client(app, .register(label: "test", authorization: authorization)))
    return d
}
