import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationSources
import Testing

/// The visits service's rule against hand-labelled stays on four real recordings (the visits
/// benchmark's tracks and labels, `Benchmarks/visits/`): the labels are the oracle.
@Suite("Visits on recorded tracks against hand labels")
struct RecordedVisitsTests {
    static let benchmark = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Benchmarks/visits")

    struct Label {
        var from: Date
        var to: Date
        var arrivalKnown: Bool
        var departureKnown: Bool
        var latitude: Double?
        var longitude: Double?
    }

    static func labels(_ name: String) throws -> (stays: [Label], dontCare: [Label]) {
        let data = try Data(contentsOf: benchmark.appendingPathComponent("labels/\(name).json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let format = Date.ISO8601FormatStyle()
        func parse(_ item: [String: Any], from: String, to: String) throws -> Label {
            Label(
                from: try format.parse(try #require(item[from] as? String)),
                to: try format.parse(try #require(item[to] as? String)),
                arrivalKnown: item["arrival_known"] as? Bool ?? true,
                departureKnown: item["departure_known"] as? Bool ?? true,
                latitude: item["latitude"] as? Double, longitude: item["longitude"] as? Double)
        }
        let stays = try (object["stays"] as? [[String: Any]] ?? []).map { try parse($0, from: "arrival", to: "departure") }
        let dontCare = try (object["dont_care"] as? [[String: Any]] ?? []).map { try parse($0, from: "from", to: "to") }
        return (stays, dontCare)
    }

    /// The completed visits, and the arrival of one still going on at the end, as the engine decides them.
    static func visits(_ name: String) throws -> [Visit] {
        let data = try Data(contentsOf: benchmark.appendingPathComponent("tracks/\(name).gpx"))
        var player = try RoutePlayer(route: try GPXParser().route(from: data, name: name), speed: .infinity)
        var detector = VisitDetector()
        let events = player.advance(to: 0, timestamp: Date()).flatMap { detector.observe($0) }
        let completed = events.filter { $0.departure != nil }
        let ongoing = events.filter { event in
            event.departure == nil && !completed.contains { $0.arrival == event.arrival && $0.arrival != nil }
        }
        return completed + ongoing.suffix(1)
    }

    static func distance(_ visit: Visit, _ label: Label) -> Double {
        guard let latitude = label.latitude, let longitude = label.longitude else { return 0 }
        return Geodesic.wgs84.inverse(
            latitude1: visit.latitude, longitude1: visit.longitude, latitude2: latitude, longitude2: longitude
        ).distance
    }

    static func overlaps(_ visit: Visit, _ label: Label) -> Bool {
        (visit.arrival ?? .distantPast) <= label.to && (visit.departure ?? .distantFuture) >= label.from
    }

    @Test(
        "every labelled stay is found, nothing else is, and the times and places are close",
        arguments: ["ExampleTrack", "korita-zbevnica-timed", "cerknicko-jezero", "around-visnjan-with-car"])
    func matchesTheLabels(track: String) throws {
        let (stays, dontCare) = try Self.labels(track)
        let visits = try Self.visits(track)
        for stay in stays {
            let match = try #require(
                visits.first { Self.overlaps($0, stay) && Self.distance($0, stay) <= 200 },
                "\(track): no visit for the stay \(stay.from)–\(stay.to); found \(visits)")
            if stay.arrivalKnown, let arrival = match.arrival {
                #expect(abs(arrival.timeIntervalSince(stay.from)) <= 90, "\(track) arrival \(arrival) vs \(stay.from)")
            }
            if stay.departureKnown {
                let departure = try #require(match.departure, "\(track): the stay ending \(stay.to) never ended")
                #expect(abs(departure.timeIntervalSince(stay.to)) <= 90, "\(track) departure \(departure) vs \(stay.to)")
            }
            #expect(Self.distance(match, stay) <= 100, "\(track) centre off by \(Self.distance(match, stay)) m")
        }
        let unexplained = visits.filter { visit in
            !stays.contains { Self.overlaps(visit, $0) } && !dontCare.contains { Self.overlaps(visit, $0) }
        }
        #expect(unexplained.isEmpty, "\(track): visits where nobody stayed: \(unexplained)")
    }
}
