import Foundation
import Testing

@testable import CoreLocationEngine

/// `JumpScreen` (decision 0063): a spike and back is not movement; a real fast move, a relocation after a
/// gap, and a jump that stays are.
@Suite struct JumpScreenTests {
    static func at(_ metres: Double, _ seconds: Double, accuracy: Double = 5) -> Fix {
        let p = point(from: 45, 6, azimuth: 90, metres: metres)
        return fix(p.0, p.1, accuracy: accuracy, at: seconds)
    }

    @Test func aSpikeAndBackIsRejectedFixByFix() {
        var screen = JumpScreen()
        var verdicts: [JumpScreen.Verdict] = []
        for t in 0..<30 { verdicts.append(screen.screen(Self.at(Double(t % 3), Double(t)))) }
        for t in 30..<35 { verdicts.append(screen.screen(Self.at(500, Double(t)))) }
        for t in 35..<40 { verdicts.append(screen.screen(Self.at(1, Double(t)))) }
        #expect(verdicts[..<30].allSatisfy { $0 == .accepted })
        #expect(verdicts[30..<35].allSatisfy { $0 == .jump })
        #expect(verdicts[35...].allSatisfy { $0 == .accepted })
    }

    /// At 5 s a 300 m step after standing still is 58 m/s: below 70 m/s, but no car gets there from rest.
    @Test func aStepNoVehicleMakesFromRestIsAJump() {
        var screen = JumpScreen()
        for t in stride(from: 0.0, to: 60, by: 5) { #expect(screen.screen(Self.at(0, t)) == .accepted) }
        #expect(screen.screen(Self.at(300, 60)) == .jump)
    }

    @Test func aJumpThatStaysIsAcceptedAfterTheHoldTime() {
        var screen = JumpScreen()
        for t in 0..<10 { _ = screen.screen(Self.at(0, Double(t))) }
        var firstAccepted: Int?
        for t in 10..<100 where screen.screen(Self.at(800, Double(t))) == .accepted && firstAccepted == nil {
            firstAccepted = t
        }
        #expect(firstAccepted == 70)
    }

    @Test func aRelocationAfterAGapIsAccepted() {
        var screen = JumpScreen()
        for t in 0..<10 { _ = screen.screen(Self.at(0, Double(t))) }
        // 2 km after 3 minutes without a fix: 11 m/s, a drive.
        #expect(screen.screen(Self.at(2000, 190)) == .accepted)
    }

    @Test func aMotorwayDriveIsAcceptedAtOneAndFiveSeconds() {
        for step in [1.0, 5.0] {
            var screen = JumpScreen()
            var t = 0.0
            var x = 0.0
            while t < 400 {
                #expect(screen.screen(Self.at(x, t)) == .accepted, "step \(step) t \(t)")
                let speed = t < 60 ? 0 : min(36, 3 * (t - 60))
                x += speed * step
                t += step
            }
        }
    }

    @Test func aStepTheAccuraciesCoverIsNoJump() {
        var screen = JumpScreen()
        for t in 0..<10 { _ = screen.screen(Self.at(0, Double(t), accuracy: 60)) }
        #expect(screen.screen(Self.at(120, 10, accuracy: 60)) == .accepted)
    }
}
