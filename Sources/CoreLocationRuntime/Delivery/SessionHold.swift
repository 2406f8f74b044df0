import Foundation
import Synchronization

/// What a `CLBackgroundActivitySession` or `CLServiceSession` means to locationd (decision 0048):
/// while the process holds one, a process that ends with its updates running is relaunched at the
/// next location update. Released once, by `invalidate()` or when the session is deallocated; a
/// process that is killed or exits holds it to the end, which is what makes the relaunch happen.
/// Without locationd (the in-process engine) there is nothing to relaunch the app and it does nothing.
package final class SessionHold: Sendable {
    private let link: DaemonLink?
    private let held = Mutex(true)

    package init(runtime: LocationRuntime) {
        link = runtime.link
        link?.holdSession()
    }

    package func release() {
        guard held.withLock({ held in defer { held = false }; return held }) else { return }
        link?.releaseSession()
    }
}
