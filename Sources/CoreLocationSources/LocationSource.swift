import CoreLocationEngine

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
