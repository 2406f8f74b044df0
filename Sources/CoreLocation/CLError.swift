import Foundation

/// An error from Core Location, in the domain `kCLErrorDomain`.
///
/// Shaped like Apple's: a struct wrapping an `NSError`, with a nested `Code` whose raw values are
/// Apple's, static shortcuts (`CLError.denied`) so that `catch CLError.denied` works, and bridging to
/// `NSError` through `CustomNSError` (`error as NSError` has domain `kCLErrorDomain` and the code's raw
/// value).
public struct CLError: CustomNSError, Hashable, Error {
    /// The reason for the error. Raw values as Apple's `CLError.h`.
    public enum Code: Int, Sendable {
        case locationUnknown = 0
        case denied = 1
        case network = 2
        case headingFailure = 3
        case regionMonitoringDenied = 4
        case regionMonitoringFailure = 5
        case regionMonitoringSetupDelayed = 6
        case regionMonitoringResponseDelayed = 7
        case geocodeFoundNoResult = 8
        case geocodeFoundPartialResult = 9
        case geocodeCanceled = 10
        case deferredFailed = 11
        case deferredNotUpdatingLocation = 12
        case deferredAccuracyTooLow = 13
        case deferredDistanceFiltered = 14
        case deferredCanceled = 15
        case rangingUnavailable = 16
        case rangingFailure = 17
        case promptDeclined = 18
        case historicalLocationError = 19

        /// Whether `error` is a `CLError` (or an `NSError` in `kCLErrorDomain`) with this code.
        public static func ~= (match: Code, error: any Error) -> Bool {
            // `as NSError` bridges a CLError through CustomNSError, and keeps an NSError as it is.
            let error = error as NSError
            return error.domain == kCLErrorDomain && error.code == match.rawValue
        }
    }

    /// The wrapped error, which holds the code and the user info (as Apple's `_nsError`).
    private let nsError: NSError

    /// Makes an error with a code and, optionally, user info such as `kCLErrorUserInfoAlternateRegionKey`.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.nsError = NSError(domain: kCLErrorDomain, code: code.rawValue, userInfo: userInfo)
    }

    /// The reason for the error.
    public var code: Code {
        // Only `init(_:userInfo:)` creates `nsError`, always with a valid code.
        Code(rawValue: nsError.code) ?? .locationUnknown
    }

    /// The user info given when the error was made.
    public var userInfo: [String: Any] { nsError.userInfo }

    /// `kCLErrorDomain`.
    public static var errorDomain: String { kCLErrorDomain }

    /// The code's raw value.
    public var errorCode: Int { nsError.code }

    /// The user info, with a description of the failure under `NSLocalizedDescriptionKey` unless one was given.
    public var errorUserInfo: [String: Any] {
        var info = nsError.userInfo
        if info[NSLocalizedDescriptionKey] == nil {
            info[NSLocalizedDescriptionKey] = code.message
        }
        return info
    }

    /// The region Core Location suggests monitoring instead, when region monitoring failed.
    public var alternateRegion: CLRegion? {
        nsError.userInfo[kCLErrorUserInfoAlternateRegionKey] as? CLRegion
    }

    public static func == (lhs: CLError, rhs: CLError) -> Bool {
        lhs.nsError.isEqual(rhs.nsError)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(nsError.code)
    }

    public static var locationUnknown: CLError.Code { .locationUnknown }
    public static var denied: CLError.Code { .denied }
    public static var network: CLError.Code { .network }
    public static var headingFailure: CLError.Code { .headingFailure }
    public static var regionMonitoringDenied: CLError.Code { .regionMonitoringDenied }
    public static var regionMonitoringFailure: CLError.Code { .regionMonitoringFailure }
    public static var regionMonitoringSetupDelayed: CLError.Code { .regionMonitoringSetupDelayed }
    public static var regionMonitoringResponseDelayed: CLError.Code { .regionMonitoringResponseDelayed }
    public static var geocodeFoundNoResult: CLError.Code { .geocodeFoundNoResult }
    public static var geocodeFoundPartialResult: CLError.Code { .geocodeFoundPartialResult }
    public static var geocodeCanceled: CLError.Code { .geocodeCanceled }
    public static var deferredFailed: CLError.Code { .deferredFailed }
    public static var deferredNotUpdatingLocation: CLError.Code { .deferredNotUpdatingLocation }
    public static var deferredAccuracyTooLow: CLError.Code { .deferredAccuracyTooLow }
    public static var deferredDistanceFiltered: CLError.Code { .deferredDistanceFiltered }
    public static var deferredCanceled: CLError.Code { .deferredCanceled }
    public static var rangingUnavailable: CLError.Code { .rangingUnavailable }
    public static var rangingFailure: CLError.Code { .rangingFailure }
    public static var promptDeclined: CLError.Code { .promptDeclined }
    public static var historicalLocationError: CLError.Code { .historicalLocationError }
}

extension CLError.Code {
    /// What went wrong, in a sentence (English; Apple's system strings are not available on Linux).
    var message: String {
        switch self {
        case .locationUnknown: "The location is currently unknown; Core Location keeps trying."
        case .denied: "Access to location services was denied."
        case .network: "The network was unavailable or a network error occurred."
        case .headingFailure: "The heading could not be determined."
        case .regionMonitoringDenied: "Region monitoring was denied."
        case .regionMonitoringFailure: "The region could not be monitored."
        case .regionMonitoringSetupDelayed: "Region monitoring could not be set up yet."
        case .regionMonitoringResponseDelayed: "Region events may be delayed."
        case .geocodeFoundNoResult: "The geocoding request found no result."
        case .geocodeFoundPartialResult: "The geocoding request found only a partial result."
        case .geocodeCanceled: "The geocoding request was canceled."
        case .deferredFailed: "Deferred location updates failed."
        case .deferredNotUpdatingLocation: "Deferred updates need location updates to be running."
        case .deferredAccuracyTooLow: "Deferred updates need a desired accuracy of best or best for navigation."
        case .deferredDistanceFiltered: "Deferred updates need the distance filter to be kCLDistanceFilterNone."
        case .deferredCanceled: "Deferred updates were canceled."
        case .rangingUnavailable: "Beacon ranging is unavailable."
        case .rangingFailure: "Beacon ranging failed."
        case .promptDeclined: "The authorization prompt was declined."
        case .historicalLocationError: "Historical locations could not be delivered."
        }
    }
}
