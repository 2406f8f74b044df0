import CoreLocationEngine

/// What a heading source tells its owner.
public enum HeadingSourceEvent: Sendable, Hashable {
    /// A magnetometer reading.
    case sample(HeadingSample)
    /// The source cannot currently read its sensor (device gone, unreadable); the reason is for logs.
    case unavailable(reason: String)
}

/// Anything that produces magnetometer samples: an IIO magnetometer, a simulated device.
///
/// Implementations deliver events on any thread, never after `stop()` has returned, and tolerate
/// `start` after `stop`.
public protocol HeadingSource: AnyObject, Sendable {
    /// A short name for logs and `locationctl`, e.g. "iio:device0 (ak8975)".
    var name: String { get }
    /// Whether samples are made up by software.
    var isSimulated: Bool { get }
    func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void)
    func stop()
}
