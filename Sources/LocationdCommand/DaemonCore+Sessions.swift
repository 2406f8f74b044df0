import CoreLocationRuntime
import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Foundation

/// `CLBackgroundActivitySession` and `CLServiceSession` through locationd (issue 11, decision
/// 0048). A process that holds one says so (`holdSession`). When it ends while holding one with
/// its location updates running — killed, crashed, or exited without invalidating — the session
/// is *interrupted*: the daemon keeps updates running for the app on its own client, and the first
/// fix newer than the interruption stores a payload-less `session` wake-up that makes the sweep
/// relaunch the app (the same rules, backoff, limits, expiry and switch as for regions). The fix
/// itself is never stored: the relaunched app recreates its session and its `liveUpdates` and hears
/// the next fixes live, as Apple asks of a relaunched app. A relaunched process that ends without
/// holding a session again ends the session for good; `invalidate()` ends it at once.
extension DaemonCore {
    static let sessionService = "session"

    /// The connection's process holds a session now (`held`), or no longer any.
    func holdSession(_ held: Bool, peer: Peer, app: App) {
        peer.state.withLock { state in
            state.holdsSession = held
            if held { state.heldSession = true }
        }
        guard held else { return }
        recordLaunchTarget(of: peer, app: app)
        endSession(app, because: "session resumed by the app")
    }

    /// The connection closed: a session held with updates running is interrupted; a session
    /// waiting for the app to take it back ends when a process of the app ends without doing so.
    func sessionOnDetach(_ peer: Peer, app: App) {
        let (holds, held, updating) = peer.state.withLock { state in
            (state.holdsSession, state.heldSession, state.services.values.contains { $0.contains("updates") })
        }
        if holds, updating {
            interruptSession(app)
        } else if !held {
            endSession(app, because: "session ended: the app ran without taking it back")
        }
    }

    private func interruptSession(_ app: App) {
        guard let backgroundStore else { return }
        do {
            guard try backgroundStore.setService(Self.sessionService, on: true, uid: app.key.uid, appID: app.key.appID)
            else { return }  // no launch target: nothing could start the app again
        } catch {
            logger.error("Cannot store an interrupted session", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        record(app.key, "session interrupted: relaunch at the next location update")
        holdServices(app, restarting: false)
    }

    /// The app holds its session again, or gave it up: the daemon's copy of its updates stops and
    /// a wake-up not yet answered goes. Recorded only when there was a session to end.
    private func endSession(_ app: App, because reason: String) {
        // Set while the daemon runs updates for an interrupted session (also after a restart,
        // which starts them again): no database read at every connection's end.
        guard let backgroundStore, app.sessionInterrupted.withLock({ $0 }) != nil else { return }
        do {
            try backgroundStore.setService(Self.sessionService, on: false, uid: app.key.uid, appID: app.key.appID)
            try backgroundStore.acknowledge(
                uid: app.key.uid, appID: app.key.appID, through: .max, kinds: [PendingKind.session])
        } catch {
            logger.error("Cannot end an interrupted session", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        backgroundMemory.withLock { $0.unanswered[app.key] = nil }
        record(app.key, reason)
        holdServices(app, restarting: false)
    }

    /// Starts or stops the updates the daemon runs for an interrupted session.
    func runSessionUpdates(_ app: App, _ on: Bool) {
        let client = app.sessionClient.withLock { client -> ClientID in
            if let client { return client }
            let added = app.runtime.addClient(label: "locationd: session") { [weak self, weak app] event in
                guard let self, let app else { return }
                self.sessionEvent(event, app: app)
            }
            client = added
            return added
        }
        // Only a fix newer than the start (the interruption, or a daemon start) wakes the app.
        app.sessionInterrupted.withLock { $0 = on ? wallClock : nil }
        app.runtime.send(on ? .startUpdates(UpdateRequest()) : .stopUpdates, from: client)
    }

    /// A fix for an interrupted session: the first one newer than the interruption, while no
    /// process of the app runs and the app may have its location, stores the wake-up.
    private func sessionEvent(_ event: ClientEvent, app: App) {
        guard let backgroundStore, case let .delivery(delivery) = event, let newest = delivery.fixes.last,
            app.peers.withLock({ $0.values.allSatisfy(\.isClosed) }),
            effectiveAuthorization(app).allowsLocation
        else { return }
        if let interrupted = app.sessionInterrupted.withLock({ $0 }),
            newest.timestamp.timeIntervalSince1970 <= interrupted
        {
            return
        }
        let now = wallClock
        do {
            // One wake-up at a time: the fixes that follow it are the relaunched app's to hear.
            let pending = try backgroundStore.pending(uid: app.key.uid, appID: app.key.appID)
            guard !pending.contains(where: { $0.kind == PendingKind.session }) else { return }
            try storePending(app, kind: PendingKind.session, payload: Data(), now: now)
        } catch {
            logger.error("Cannot store a session wake-up", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        wakeSweep()
    }
}
