import Foundation
import Testing

@testable import CoreLocationEngine

/// `StayTracker` (decision 0064): a wander of 150 m is a stay; a walk, even a slow one, is not.
@Suite struct StayTrackerTests {
    static func at(_ x: Double, _ y: Double, _ seconds: Double) -> Fix {
        let p = point(from: 45, 6, azimuth: atan2(x, y) * 180 / .pi, metres: (x * x + y * y).squareRoot())
        return fix(p.0, p.1, accuracy: 5, at: seconds)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func aWanderOf150MetresIsAStay(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var tracker = StayTracker()
        var (x, y) = (0.0, 0.0)
        let sigma = 75 / 2.0.squareRoot()
        let a = exp(-1.0 / 120)
        var stayingFrom: Int?
        var stayingSeconds = 0
        for t in 0..<3600 {
            x = a * x + sigma * (1 - a * a).squareRoot() * gaussian(&random)
            y = a * y + sigma * (1 - a * a).squareRoot() * gaussian(&random)
            tracker.observe(Self.at(x, y, Double(t)))
            if tracker.isStaying, stayingFrom == nil { stayingFrom = t }
            if tracker.isStaying { stayingSeconds += 1 }
        }
        #expect((stayingFrom ?? .max) <= 900, "\(String(describing: stayingFrom))")
        // The envelope is at most 100 m (decision 0064): a wander beyond it for 20 s ends the stay and the
        // next 5 minutes begin another. Most of the hour is a stay all the same.
        #expect(stayingSeconds >= 1800, "\(stayingSeconds) s of 3600 staying")
    }

    /// Leaving: 10 min standing (a few metres of noise), then a walk away at 1.3 m/s: the stay ends once
    /// two fixes, 20 s apart, lie beyond its envelope (50 m, the least) plus their accuracy.
    @Test func aWalkAwayEndsTheStay() throws {
        var random = SeededGenerator(seed: 9)
        var tracker = StayTracker()
        for t in 0..<600 {
            tracker.observe(Self.at(3 * gaussian(&random), 3 * gaussian(&random), Double(t)))
        }
        #expect(tracker.isStaying)
        #expect(tracker.envelope == 50)
        var ended: Double?
        for s in 1...300 where ended == nil {
            tracker.observe(Self.at(1.3 * Double(s), 0, Double(600 + s)))
            if !tracker.isStaying { ended = 1.3 * Double(s) }
        }
        let metres = try #require(ended)
        #expect(metres > 55 && metres <= 55 + 1.3 * 21 + 5, "ended \(metres) m out")
    }

    /// Round a 600 m block for an hour, at 1.0 and 1.3 m/s (its corners included).
    @Test(arguments: [1.0, 1.3])
    func aWalkIsNoStay(speed: Double) {
        var tracker = StayTracker()
        for t in 0..<3600 {
            let s = speed * Double(t)
            let r = s.truncatingRemainder(dividingBy: 600)
            let (x, y): (Double, Double) = [(r, 0), (600, r), (600 - r, 600), (0, 600 - r)][Int(s / 600) % 4]
            tracker.observe(Self.at(x, y, Double(t)))
            #expect(!tracker.isStaying, "t \(t)")
            if tracker.isStaying { break }
        }
    }
}
