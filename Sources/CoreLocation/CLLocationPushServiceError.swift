import Foundation

/// An error from the location push service, in the domain `CLLocationPushServiceErrorDomain`.
///
/// Location pushes need Apple's push service, so on Linux the manager's push APIs fail with
/// `.unsupportedPlatform`. Shaped like `CLError`.
public struct CLLocationPushServiceError: CustomNSError, Hashable, Error {
    /// The reason for the error. Raw values as Apple's.
    public enum Code: Int, Sendable {
        case unknown = 0
        case missingPushExtension = 1
        case missingPushServerEnvironment = 2
        case missingEntitlement = 3
        case unsupportedPlatform = 4

        /// Whether `error` is a `CLLocationPushServiceError` (or an `NSError` in its domain) with this code.
        public static func ~= (match: Code, error: any Error) -> Bool {
            // `as NSError` bridges through CustomNSError, and keeps an NSError as it is.
            let error = error as NSError
            return error.domain == CLLocationPushServiceErrorDomain && error.code == match.rawValue
        }
    }

    private let nsError: NSError

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.nsError = NSError(domain: CLLocationPushServiceErrorDomain, code: code.rawValue, userInfo: userInfo)
    }

    public var code: Code {
        // Only `init(_:userInfo:)` creates `nsError`, always with a valid code.
        Code(rawValue: nsError.code) ?? .unknown
    }

    public var userInfo: [String: Any] { nsError.userInfo }

    public static var errorDomain: String { CLLocationPushServiceErrorDomain }

    public var errorCode: Int { nsError.code }

    /// The user info, with a description of the failure under `NSLocalizedDescriptionKey` unless one was given.
    public var errorUserInfo: [String: Any] {
        var info = nsError.userInfo
        if info[NSLocalizedDescriptionKey] == nil {
            info[NSLocalizedDescriptionKey] = code.message
        }
        return info
    }

    public static func == (lhs: CLLocationPushServiceError, rhs: CLLocationPushServiceError) -> Bool {
        lhs.nsError.isEqual(rhs.nsError)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(nsError.code)
    }

    public static var unknown: CLLocationPushServiceError.Code { .unknown }
    public static var missingPushExtension: CLLocationPushServiceError.Code { .missingPushExtension }
    public static var missingPushServerEnvironment: CLLocationPushServiceError.Code { .missingPushServerEnvironment }
    public static var missingEntitlement: CLLocationPushServiceError.Code { .missingEntitlement }
    public static var unsupportedPlatform: CLLocationPushServiceError.Code { .unsupportedPlatform }
}

extension CLLocationPushServiceError.Code {
    var message: String {
        switch self {
        case .unknown: "The location push service failed for an unknown reason."
        case .missingPushExtension: "The app has no location push service extension."
        case .missingPushServerEnvironment: "The app has no push server environment entitlement."
        case .missingEntitlement: "The app lacks the location push entitlement."
        case .unsupportedPlatform: "Location push services are not supported on this platform."
        }
    }
}
