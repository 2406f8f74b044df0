// CoreLocationProbe: a tiny app for the end-to-end tests. It creates a CLLocationManager under one
// of the ways a program can wait, asks for when-in-use authorization, requests one location, and
// prints one line per delegate call saying where the call ran.
//
//   CoreLocationProbe MODE [TIMEOUT]
//     MODE     runloop       manager made on the main thread, then RunLoop.main.run()
//              dispatchmain  manager made on the main thread, then dispatchMain()
//              asyncmain     manager made on the main actor after an await (this file is an async
//                            main: top-level `await`), then the main task suspends for ever
//              thread        manager made on a secondary Thread that runs its own RunLoop
//     TIMEOUT  seconds without an outcome before giving up (default 10)
//
// Standard output, one line per event, fields `key=value` after the positional ones:
//   created main=B mainqueue=B thread=T
//   authorization STATUS main=B mainqueue=B same-thread=B thread=T
//   location LAT LON main=B mainqueue=B same-thread=B thread=T
//   error DOMAIN CODE main=B mainqueue=B same-thread=B thread=T
// `main` is Thread.isMainThread; `mainqueue` is "running on the main dispatch queue" (on Linux,
// under dispatchMain() and an async main, the main queue is drained by a worker thread for which
// Thread.isMainThread is false); `same-thread` is whether the call ran on the thread that created
// the manager.
//
// Exit codes: 0 a location arrived; 3 timed out; 4 a kCLErrorDenied error arrived; 5 timed out
// with the authorization still not determined (the request was ignored); 64 usage error.
//
// The library logs through swift-log, whose default handler writes to standard error; the probe
// leaves it in place so tests can read the library's diagnostics there.

import CoreLocation
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Where are we?

private let mainQueueKey = DispatchSpecificKey<Bool>()
DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)

/// The calling thread as a number that stays the same for the thread's life.
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

/// A description of the calling thread: `main`, or its name (if any) and pthread id.
private func threadDescription() -> String {
    if Thread.isMainThread { return "main" }
    let name = (Thread.current.name ?? "").replacingOccurrences(of: " ", with: "_")
    return "\(name)#\(currentThreadID())"
}

private func placeFields() -> String {
    let onMainQueue = DispatchQueue.getSpecific(key: mainQueueKey) == true
    return "main=\(Thread.isMainThread) mainqueue=\(onMainQueue) thread=\(threadDescription())"
}

/// Writes a line to standard output at once (stdout to a pipe is block-buffered by stdio).
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

private func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

// MARK: The delegate

/// Requests authorization and one location, and reports each delegate call.
///
/// `Sendable` through its `Mutex`; the manager calls it on one thread anyway.
final class ProbeDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    private struct State {
        var creatorThread: UInt?
        var askedForAuthorization = false
        var requestedLocation = false
        var lastStatus: CLAuthorizationStatus?
    }

    private let state = Mutex(State())

    /// Remembers the thread that is creating the manager; call it on that thread.
    func noteCreatorThread() {
        let id = currentThreadID()
        state.withLock { $0.creatorThread = id }
    }

    /// The status the last authorization call reported; nil before the first one.
    var lastStatus: CLAuthorizationStatus? { state.withLock { $0.lastStatus } }

    private func fields() -> String {
        let creator = state.withLock { $0.creatorThread }
        let onMainQueue = DispatchQueue.getSpecific(key: mainQueueKey) == true
        return "main=\(Thread.isMainThread) mainqueue=\(onMainQueue) same-thread=\(creator == currentThreadID()) "
            + "thread=\(threadDescription())"
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        let status = manager.authorizationStatus
        state.withLock { $0.lastStatus = status }
        emit("authorization \(status.rawValue) \(fields())")
        if status == .notDetermined {
            let ask = state.withLock { state -> Bool in
                defer { state.askedForAuthorization = true }
                return !state.askedForAuthorization
            }
            if ask { manager.requestWhenInUseAuthorization() }
            return
        }
        // Authorized, or denied/restricted: requestLocation() then answers with kCLErrorDenied.
        let request = state.withLock { state -> Bool in
            defer { state.requestedLocation = true }
            return !state.requestedLocation
        }
        if request { manager.requestLocation() }
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last else { return }
        let c = location.coordinate
        emit(String(format: "location %.6f %.6f ", c.latitude, c.longitude) + fields())
        exit(0)
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let error = error as NSError
        emit("error \(error.domain) \(error.code) \(fields())")
        if error.domain == kCLErrorDomain, error.code == CLError.Code.denied.rawValue { exit(4) }
    }
}

// MARK: Modes

enum Mode: String, CaseIterable {
    case runloop, dispatchmain, asyncmain, thread
}

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first.flatMap(Mode.init(rawValue:)) else {
    complain("usage: CoreLocationProbe \(Mode.allCases.map(\.rawValue).joined(separator: "|")) [timeout-seconds]")
    exit(64)
}
let timeout: Double
if arguments.count > 1 {
    guard let value = Double(arguments[arguments.startIndex + 1]), value > 0, value.isFinite else {
        complain("timeout must be a positive number of seconds")
        exit(64)
    }
    timeout = value
} else {
    timeout = 10
}

let delegate = ProbeDelegate()

// A watchdog off every run loop, so it fires whatever the mode does (or fails to do).
DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
    let status = delegate.lastStatus
    if status == .notDetermined {
        complain("no progress after \(timeout) s: authorization is still not determined")
        exit(5)
    }
    let reported = status.map { "\($0.rawValue)" } ?? "never reported"
    complain("timed out after \(timeout) s without a location (authorization \(reported))")
    exit(3)
}

/// The ways of waiting, as functions outside the top-level code so the thread mode can call them.
enum Probe {
    /// Creates the manager on the calling thread and reports where that was.
    static func makeManager(delegate: ProbeDelegate) -> CLLocationManager {
        delegate.noteCreatorThread()
        let manager = CLLocationManager()
        manager.delegate = delegate
        emit("created \(placeFields())")
        return manager
    }

    // `RunLoop.run()` and `dispatchMain()` are unavailable from async contexts, and this file's top
    // level is one (it holds an `await`). Its synchronous part before the first `await` runs on the
    // main thread, as a synchronous main would, so these wrappers behave as in a synchronous program.
    static func runMainRunLoop() -> Never {
        keepAlive(RunLoop.main)
        while true { RunLoop.main.run() }
    }

    static func runCurrentRunLoop() -> Never {
        keepAlive(RunLoop.current)
        while true { RunLoop.current.run() }
    }

    static func parkInDispatchMain() -> Never {
        dispatchMain()
    }

    /// A run loop with no source returns from `run()` at once; a far-off timer keeps it waiting.
    private static func keepAlive(_ runLoop: RunLoop) {
        runLoop.add(Timer(timeInterval: 1e9, repeats: true) { _ in }, forMode: .default)
    }
}

switch mode {
case .runloop:
    let manager = Probe.makeManager(delegate: delegate)
    withExtendedLifetime(manager) { Probe.runMainRunLoop() }
case .dispatchmain:
    let manager = Probe.makeManager(delegate: delegate)
    withExtendedLifetime(manager) { Probe.parkInDispatchMain() }
case .asyncmain:
    // After an await the main task runs on the main actor, which on Linux means the main queue
    // drained by a worker thread: the case a Linux port most easily gets wrong.
    await Task.yield()
    let manager = Probe.makeManager(delegate: delegate)
    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    withExtendedLifetime(manager) {}
case .thread:
    let threadDelegate = delegate
    let thread = Thread {
        // Cosmetic: Linux keeps at most 15 bytes of a name, a name given before start() is lost,
        // and now and then even this one is (swift-corelibs-foundation); tests compare pthread ids.
        Thread.current.name = "probe-manager"
        let manager = Probe.makeManager(delegate: threadDelegate)
        withExtendedLifetime(manager) { Probe.runCurrentRunLoop() }
    }
    thread.start()
    Probe.parkInDispatchMain()
}
