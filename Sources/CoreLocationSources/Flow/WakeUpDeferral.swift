import Synchronization

/// Wake-ups of other threads held back until the work running on this thread is over.
///
/// A replay step hands out many events at once; each delivery to an app's thread (its run loop or the
/// main queue) would otherwise wake that thread, which takes the one event, goes back to sleep, and is
/// woken again for the next: two context switches an event. Inside `collecting`, `wake` keeps the
/// wake-up, and the step's end runs each kept wake-up once. Outside it, `wake` runs at once, so live
/// sources (one event at a time) deliver with no added latency.
public final class WakeUpDeferral: Sendable {
    @TaskLocal private static var current: WakeUpDeferral?
    private let kept = Mutex<[@Sendable () -> Void]>([])

    private init() {}

    /// Runs `body`; wake-ups asked for inside it run when it returns, in the order they were asked for.
    public static func collecting(_ body: () -> Void) {
        let deferral = WakeUpDeferral()
        $current.withValue(deferral) { body() }
        for wakeUp in deferral.kept.withLock({ $0 }) { wakeUp() }
    }

    /// Runs `wakeUp` now, or at the end of the `collecting` call running on this thread.
    public static func wake(_ wakeUp: @escaping @Sendable () -> Void) {
        guard let deferral = current else { return wakeUp() }
        deferral.kept.withLock { $0.append(wakeUp) }
    }
}
