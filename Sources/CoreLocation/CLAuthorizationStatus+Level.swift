import CoreLocationEngine


extension CLAuthorizationStatus {
    init(_ level: AuthorizationLevel) {
        switch level {
        case .notDetermined: self = .notDetermined
        case .denied: self = .denied
        case .restricted: self = .restricted
        case .whenInUse: self = .authorizedWhenInUse
        case .always: self = .authorizedAlways
        }
    }
}
