// CoreLocationBundleProbe: a client written the way popular iOS location wrappers are. Before it
// asks for permission it checks `Bundle.main` for the usage description, and refuses to ask when
// the key is missing (as such wrappers do, to avoid Apple's silent no-op). The end-to-end tests
// run it as a real process with its Info.plist in each place a user might put it.
//
//   CoreLocationBundleProbe [--request-anyway] [TIMEOUT]
//     --request-anyway  ask even when Bundle.main lacks the key, then call requestLocation()
//                       while the status is still notDetermined (what plain iOS code would do)
//     TIMEOUT           seconds without an outcome before giving up (default 10)
//
// Standard output, one line per event:
//   bundle KEY present|missing path=BUNDLE_PATH
//   refused                                  the wrapper would not ask (Bundle.main lacks the key)
//   authorization STATUS                     each locationManagerDidChangeAuthorization(_:)
//   location LAT LON
//   error DOMAIN CODE
//
// Exit codes: 0 a location arrived; 3 timed out; 4 kCLErrorDenied; 5 timed out with the status
// still notDetermined; 6 refused to ask; 64 usage error. Diagnostics of the library go to
// standard error (swift-log's default handler).

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

private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

private let usageKey = "NSLocationWhenInUseUsageDescription"

/// What the wrapper's permission helper checks before calling `requestWhenInUseAuthorization()`.
private func bundleHasUsageDescription() -> Bool {
    guard let text = Bundle.main.object(forInfoDictionaryKey: usageKey) as? String else { return false }
    return !text.isEmpty
}

/// Asks once, requests one location once authorized, and reports each delegate call.
/// `Sendable` through its `Mutex`; the manager calls it on the main thread anyway.
final class BundleProbeDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    private struct State {
        var asked = false
        var requested = false
        var lastStatus: CLAuthorizationStatus?
    }

    private let state = Mutex(State())
    let requestAnyway: Bool

    init(requestAnyway: Bool) {
        self.requestAnyway = requestAnyway
    }

    var lastStatus: CLAuthorizationStatus? { state.withLock { $0.lastStatus } }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        let status = manager.authorizationStatus
        state.withLock { $0.lastStatus = status }
        emit("authorization \(status.rawValue)")
        if status == .notDetermined {
            let ask = state.withLock { state -> Bool in
                defer { state.asked = true }
                return !state.asked
            }
            guard ask else { return }
            manager.requestWhenInUseAuthorization()
            if requestAnyway { requestOnce(manager) }
            return
        }
        requestOnce(manager)
    }

    private func requestOnce(_ manager: CLLocationManager) {
        let request = state.withLock { state -> Bool in
            defer { state.requested = true }
            return !state.requested
        }
        if request { manager.requestLocation() }
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last else { return }
        emit(String(format: "location %.6f %.6f", location.coordinate.latitude, location.coordinate.longitude))
        exit(0)
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let error = error as NSError
        emit("error \(error.domain) \(error.code)")
        if error.domain == kCLErrorDomain, error.code == CLError.Code.denied.rawValue { exit(4) }
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
let requestAnyway = arguments.first == "--request-anyway"
if requestAnyway { arguments.removeFirst() }
let timeout: Double
if let text = arguments.first {
    guard let value = Double(text), value > 0, value.isFinite, arguments.count == 1 else {
        FileHandle.standardError.write(Data("usage: CoreLocationBundleProbe [--request-anyway] [TIMEOUT]\n".utf8))
        exit(64)
    }
    timeout = value
} else {
    timeout = 10
}

// Wrappers make their manager first and check the bundle when the app asks for permission.
let manager = CLLocationManager()
let hasKey = bundleHasUsageDescription()
emit("bundle \(usageKey) \(hasKey ? "present" : "missing") path=\(Bundle.main.bundlePath)")
if !hasKey && !requestAnyway {
    emit("refused")
    exit(6)
}

let delegate = BundleProbeDelegate(requestAnyway: requestAnyway)
DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [timeout] in
    if delegate.lastStatus == .notDetermined {
        FileHandle.standardError.write(Data("no progress after \(timeout) s: still not determined\n".utf8))
        exit(5)
    }
    FileHandle.standardError.write(Data("timed out after \(timeout) s without a location\n".utf8))
    exit(3)
}

manager.delegate = delegate
withExtendedLifetime(manager) {
    while true { RunLoop.main.run() }
}
