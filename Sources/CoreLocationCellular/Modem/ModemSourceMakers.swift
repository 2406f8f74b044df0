import CoreLocationSources
import Foundation

/// Registers the `modem:` source URLs (`ModemSourceURL`) with `SourceMakers` (docs/decisions/0038), so
/// `sources.conf`, `--source` and locationd make them as any other source.
public enum ModemSourceMakers {
    public static func register() {
        SourceMakers.register(
            SourceMaker(
                schemes: ["modem"],
                validate: { spec in
                    guard ModemSourceURL(spec.description) != nil else {
                        throw SourceConfigurationError(.invalidURL, "\(spec): use modem:, modem:gnss or modem:cell")
                    }
                },
                make: { spec, context in
                    guard let url = ModemSourceURL(spec.description) else {
                        throw SourceConfigurationError(.invalidURL, "\(spec): use modem:, modem:gnss or modem:cell")
                    }
                    return try url.makeSources(
                        environment: context.environment, scheduler: context.scheduler, logger: context.logger)
                }))
    }
}
