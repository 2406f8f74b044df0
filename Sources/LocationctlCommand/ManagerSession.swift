import CoreLocation
import CoreLocationRuntime
import Foundation

/// What `locate` and `track` share: this process's location system, a manager wired to a
/// `ManagerBridge`, and the authorization steps an app takes before it may ask for locations.
@MainActor
struct ManagerSession {
    let installed: CommandRuntime
    var runtime: any LocationRuntime { installed.runtime }
    let bridge = ManagerBridge()
    let manager: CLLocationManager
    private var asked = false

    /// Installs the runtime the options describe; without any source, exits 69 at once
    /// (authorization could not help).
    init(source: SourceOptions, accuracy: AccuracyChoice, identity: AppIdentity = .locationctl) throws {
        installed = try source.installRuntime(throughDaemon: true, identity: identity)
        if !installed.canLocate {
            try fail(NoLocation(hasSource: false), code: ExitCodes.noLocation)
        }
        manager = CLLocationManager()
        manager.delegate = bridge
        manager.desiredAccuracy = accuracy.desiredAccuracy
    }

    /// Reacts to an authorization status: true when authorized; asks once while undetermined (for Always
    /// with `always`, an app that works in the background); exits 77 when denied, restricted, or when nobody
    /// can be asked.
    mutating func isAuthorized(_ status: CLAuthorizationStatus, always: Bool = false) throws -> Bool {
        if status.isAuthorized { return true }
        if status == .notDetermined, !asked {
            asked = true
            if always { manager.requestAlwaysAuthorization() } else { manager.requestWhenInUseAuthorization() }
            if manager.authorizationStatus == .notDetermined && !runtime.authorization.isRequestInProgress {
                try fail(NotDetermined(), code: ExitCodes.notAuthorized)
            }
        } else if status == .denied || status == .restricted {
            try fail(NotAuthorized(status: status), code: ExitCodes.notAuthorized)
        }
        return false
    }

    /// Exits 77 when a delegate error says the app is not authorized.
    func failIfDenied(_ error: CLError) throws {
        if error.code == .denied {
            try fail(NotAuthorized(status: manager.authorizationStatus), code: ExitCodes.notAuthorized)
        }
    }
}
