import Foundation

// Values as in Apple's CoreLocation headers (CLLocation.h, CLError.h, CLHeading.h).

/// The highest accuracy, with additional sensor data, for navigation apps.
public let kCLLocationAccuracyBestForNavigation: CLLocationAccuracy = -2
/// The best accuracy available.
public let kCLLocationAccuracyBest: CLLocationAccuracy = -1
/// Accurate to within ten metres.
public let kCLLocationAccuracyNearestTenMeters: CLLocationAccuracy = 10
/// Accurate to within one hundred metres.
public let kCLLocationAccuracyHundredMeters: CLLocationAccuracy = 100
/// Accurate to the nearest kilometre.
public let kCLLocationAccuracyKilometer: CLLocationAccuracy = 1000
/// Accurate to the nearest three kilometres.
public let kCLLocationAccuracyThreeKilometers: CLLocationAccuracy = 3000
/// The accuracy used when the app is not authorized for full accuracy.
public let kCLLocationAccuracyReduced: CLLocationAccuracy = 3000

/// Every movement is reported (`CLLocationManager.distanceFilter`).
public let kCLDistanceFilterNone: CLLocationDistance = -1
/// The largest distance, used to mean "no limit" (deferred updates).
public let CLLocationDistanceMax: CLLocationDistance = .greatestFiniteMagnitude
/// The largest time interval, used to mean "no limit" (deferred updates).
public let CLTimeIntervalMax: TimeInterval = .greatestFiniteMagnitude

/// Every change of heading is reported (`CLLocationManager.headingFilter`).
public let kCLHeadingFilterNone: CLLocationDegrees = -1

/// The error domain of `CLError`.
public let kCLErrorDomain: String = "kCLErrorDomain"
/// The user-info key of the region suggested instead of one that could not be monitored.
public let kCLErrorUserInfoAlternateRegionKey: String = "alternateRegion"
/// The error domain of `CLLocationPushServiceError`.
public let CLLocationPushServiceErrorDomain: String = "CLLocationPushServiceErrorDomain"

/// 1 where `CLMonitor` conditions are supported, as in Apple's SDK.
public var CL_TARGET_SUPPORTS_CONDITIONS: Int32 { 1 }
