import CoreLocationEngine

/// A source that gathers fixes from several devices (the modem sources: each of ModemManager's modems) says which
/// device produced its last fix. The engine's `Fix` has no source field (Apple's `CLLocation` has none either), so
/// this is where a user sees it: `locationctl status` and `locationctl track --status` (docs/decisions/0035).
public protocol FixOriginReporting: LocationSource {
    /// The device of the last fix, for people: "Huawei E1750 (/org/freedesktop/ModemManager1/Modem/0)"; nil
    /// before the first fix.
    var lastFixOrigin: String? { get }
}

extension LocationSource {
    /// The device of the last fix when the source gathers from several (`FixOriginReporting`), else nil: what
    /// every status reads (the runtime's `EngineStatus`, locationd's `DaemonStatus`).
    public var fixOrigin: String? { (self as? any FixOriginReporting)?.lastFixOrigin }
}
