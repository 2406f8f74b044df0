import Foundation
import Synchronization

/// What a `CLBackgroundActivitySession` or `CLServiceSession` means to locationd (decision 0048):
/// while the process holds one, a process that ends with its updates running is relaunched at the
/// next location update. Released once, by `invalidate()` or when the session is deallocated; a
/// process that is killed or exits holds it to the end, which is what makes the relaunch happen.
/// Without locationd (the in-process engine) there is nothing to relaunch the app, and the runtime
/// does nothing with it.
package final class SessionHold: Sendable {
    private let runtime: any LocationRuntime
    private let held = Mutex(true)

    package init(runtime: any LocationRuntime) {
        self.runtime = runtime
        runtime.holdSession()
    }

    package func release() {
        guard held.withLock({ held in defer { held = false }; return held }) else { return }
        runtime.releaseSession()
    }
}
