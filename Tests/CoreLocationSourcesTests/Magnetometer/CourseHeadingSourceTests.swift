import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

struct CourseHeadingSourceTests {
    /// Fixes in Reykjavík (declination about −12°, so a sign error would show) with courses 0…350:
    /// the heading engine, told the same location, reports a true heading equal to the course
    /// (within the ±0.05 µT noise: < 0.2°); a fix without a course gives no sample.
    @Test func trueHeadingIsTheCourse() throws {
        let source = CourseHeadingSource(seed: 3)
        let recorder = HeadingEventRecorder()
        source.start { event in
            if case .sample(let sample) = event { recorder.record(sample: sample, unavailable: nil) }
        }
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let courses = stride(from: 0.0, to: 360, by: 10).map { $0 }
        for course in courses {
            source.follow(Fix(latitude: 64.1, longitude: -21.9, horizontalAccuracy: 5, course: course, timestamp: date))
        }
        source.follow(Fix(latitude: 64.1, longitude: -21.9, horizontalAccuracy: 5, course: -1, timestamp: date))
        source.stop()
        source.follow(Fix(latitude: 64.1, longitude: -21.9, horizontalAccuracy: 5, course: 5, timestamp: date))
        #expect(recorder.samples.count == courses.count)

        var machine = HeadingStateMachine()
        _ = machine.handle(.start, at: 0)
        _ = machine.handle(.location(HeadingLocation(latitude: 64.1, longitude: -21.9)), at: 0)
        for (i, (sample, course)) in zip(recorder.samples, courses).enumerated() {
            let actions = machine.handle(.sample(sample, HeadingSettings(filter: -1)), at: Double(i))
            guard case .deliver(let reading) = actions.last else {
                Issue.record("no reading for course \(course)")
                continue
            }
            #expect(HeadingMath.difference(reading.trueHeading, course) < 0.2)
            #expect(HeadingMath.difference(reading.magneticHeading, course) > 5)
        }
    }
}
