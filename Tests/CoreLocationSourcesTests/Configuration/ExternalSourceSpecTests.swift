import CoreLocationEngine
import Foundation
import Logging
import Testing

@testable import CoreLocationSources

/// `ip:`, `wifi:`, `geoclue:`, `modem:` URLs: parsed here, made by the maker a module above registers
/// (docs/decisions/0038).
@Suite struct ExternalSourceSpecTests {
    @Test func externalSchemesParseWithTheirRestUntouched() throws {
        let cases: [(String, ExternalSourceSpec)] = [
            ("ip:", ExternalSourceSpec(scheme: "ip", rest: "")),
            ("ip:/var/lib/db.mmdb?address=81.2.69.160", ExternalSourceSpec(scheme: "ip", rest: "/var/lib/db.mmdb?address=81.2.69.160")),
            (" WiFi:?fallback=none ", ExternalSourceSpec(scheme: "wifi", rest: "?fallback=none")),
            ("modem:gnss", ExternalSourceSpec(scheme: "modem", rest: "gnss")),
        ]
        for (text, expected) in cases {
            #expect(try SourceSpec.parse(text) == .external(expected), "\(text)")
        }
        #expect(SourceSpec.external(ExternalSourceSpec(scheme: "ip", rest: "/d.mmdb")).description == "ip:/d.mmdb")
        let (path, options) = try ExternalSourceSpec(scheme: "ip", rest: "///d.mmdb?address=1.2.3.4&refresh=9")
            .pathAndOptions()
        #expect(path == "/d.mmdb")
        #expect(options.map(\.key) == ["address", "refresh"] && options.map(\.value) == ["1.2.3.4", "9"])
        #expect(throws: SourceConfigurationError.self) {
            try ExternalSourceSpec(scheme: "ip", rest: "?address").pathAndOptions()
        }
        // Unknown schemes are still refused, naming the new ones.
        do {
            _ = try SourceSpec.parse("cell:x")
            Issue.record("cell: parsed")
        } catch let error as SourceConfigurationError {
            #expect(error.code == .unsupportedScheme && error.message.contains("ip:"), "\(error)")
        }
    }

    @Test func aSchemeWithoutAMakerIsNotAvailableInThisProgram() throws {
        // An empty registry (the process's own may hold CoreLocationNetwork's makers: one test process runs every
        // suite).
        let empty = SourceMakers()
        let spec = try SourceSpec.parse("wifi:", makers: empty)
        do {
            _ = try SourceFactory.makeSources(spec, scheduler: ManualScheduler(), logger: Logger(label: "t"), makers: empty)
            Issue.record("made a wifi: source without a maker")
        } catch let error as SourceConfigurationError {
            #expect(error.code == .notAvailable)
            #expect(error.message.contains("locationd"), "\(error)")
        }
        // A configuration naming it still parses, and making the selection leaves it out (logged).
        let selection = SourceSelection(specs: [spec, .nmea(.stdin)], origin: .commandLine)
        let made = selection.makeSources(scheduler: ManualScheduler(), logger: Logger(label: "t"), makers: empty)
        #expect(made.map(\.descriptor.kind) == ["nmea"])
    }

    @Test func aRegisteredMakerValidatesAtParseAndMakesEverySource() throws {
        let makers = SourceMakers()
        makers.register(
            SourceMaker(
                schemes: ["geoclue"],
                validate: { spec in
                    if spec.rest == "bad" { throw SourceConfigurationError(.invalidURL, "bad geoclue") }
                },
                make: { spec, context in
                    #expect(context.environment["X"] == "1")
                    return [
                        StubSource(id: spec.description + "#a", scheduler: context.scheduler),
                        StubSource(id: spec.description + "#b", scheduler: context.scheduler),
                    ]
                }))
        #expect(throws: SourceConfigurationError.self) { try SourceSpec.parse("geoclue:bad", makers: makers) }
        #expect(throws: Never.self) { try SourceSpec.parse("geoclue:bad", makers: SourceMakers()) }
        let made = try SourceFactory.makeSources(
            SourceSpec.parse("geoclue:", makers: makers), environment: ["X": "1"], scheduler: ManualScheduler(),
            logger: Logger(label: "t"), makers: makers)
        #expect(made.map(\.descriptor.id.rawValue) == ["geoclue:#a", "geoclue:#b"])
    }
}

/// A source that never reports.
private final class StubSource: LocationSource {
    let descriptor: SourceDescriptor
    init(id: String, scheduler: any Scheduler) {
        descriptor = SourceDescriptor(id: SourceID(id), kind: "stub", expectedAccuracy: 1, powerCost: 1, isSimulated: false)
    }
    func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {}
    func stop() {}
}
