import CoreLocation
import CoreLocationEngine
import CoreLocationRuntime

/// The authorization steps of a command that is itself a client of the runtime (`monitor`, `beacons`), as
/// `ManagerSession` takes them for a manager: authorized goes on; undetermined asks once (exits 77 when nobody
/// can be asked); denied or restricted exits 77. The runtime's service decides in process or asks locationd.
@MainActor
struct RuntimeAuthorization {
    let service: AuthorizationService
    private var asked = false

    init(_ service: AuthorizationService) { self.service = service }

    /// True when `level` lets the command go on.
    mutating func isAuthorized(_ level: AuthorizationLevel) throws -> Bool {
        switch level {
        case .whenInUse, .always:
            return true
        case .notDetermined:
            guard !asked else { return false }
            asked = true
            service.requestWhenInUse()
            if service.authorization.level == .notDetermined && !service.isRequestInProgress {
                try fail(NotDetermined(), code: ExitCodes.notAuthorized)
            }
            return false
        case .denied:
            try fail(NotAuthorized(status: .denied), code: ExitCodes.notAuthorized)
        case .restricted:
            try fail(NotAuthorized(status: .restricted), code: ExitCodes.notAuthorized)
        }
    }
}
