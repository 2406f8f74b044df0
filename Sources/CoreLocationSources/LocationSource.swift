import CoreLocationEngine

/// What a source tells its owner.
public enum SourceEvent: Sendable, Equatable {
    /// A new position estimate.
    case fix(Fix)
    /// A barometer's reading (only barometers send these; decision 0032).
    case pressure(PressureSample)
    /// The source cannot currently produce positions (no fix, device gone…); the reason is for logs.
    case unavailable(reason: String)
    /// The source has nothing more to say (a replay reached its end).
    case finished
}

/// Anything that produces fixes. Sources are powered on and off by the engine's decisions.
///
/// Implementations deliver events on any thread, never after `stop()` has returned, and tolerate
/// `start` after `stop` (the engine powers sources up and down many times).
public protocol LocationSource: AnyObject, Sendable {
    var descriptor: SourceDescriptor { get }
    /// Powers the source on. Events go to `handler` until `stop()`.
    func start(_ handler: @escaping @Sendable (SourceEvent) -> Void)
    /// Powers the source off.
    func stop()
}
