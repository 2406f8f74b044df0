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
        // Nothing in this test process registers wifi: (CoreLocationNetwork does, in locationd and locationctl).
        let spec = try SourceSpec.parse("wifi:")
        do {
            _ = try SourceFactory.makeSources(spec, scheduler: ManualScheduler(), logger: Logger(label: "t"))
            Issue.record("made a wifi: source without a maker")
        } catch let error as SourceConfigurationError {
            #expect(error.code == .notAvailable)
            #expect(error.message.contains("locationd"), "\(error)")
        }
        // A configuration naming it still parses, and making the selection leaves it out (logged).
        let selection = SourceSelection(specs: [spec, .nmea(.stdin)], origin: .commandLine)
        let made = selection.makeSources(scheduler: ManualScheduler(), logger: Logger(label: "t"))
        #expect(made.map(\.descriptor.kind) == ["nmea"])
    }

    @Test func aRegisteredMakerValidatesAtParseAndMakesEverySource() throws {
        // geoclue: is used by no other test of this process.
        SourceMakers.register(
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
        #expect(throws: SourceConfigurationError.self) { try SourceSpec.parse("geoclue:bad") }
        #expect(throws: SourceConfigurationError.self) { try SourcesConfigFile.parse("gpsd://\ngeoclue:bad\n") }
        let made = try SourceFactory.makeSources(
            SourceSpec.parse("geoclue:"), environment: ["X": "1"], scheduler: ManualScheduler(), logger: Logger(label: "t"))
        #expect(made.map(\.descriptor.id.rawValue) == ["geoclue:#a", "geoclue:#b"])
        // One spec, two sources: makeSource (singular) refuses rather than dropping one.
        #expect(throws: SourceConfigurationError.self) {
            try SourceFactory.makeSource(SourceSpec.parse("geoclue:"), scheduler: ManualScheduler(), logger: Logger(label: "t"))
        }
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
