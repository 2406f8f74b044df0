import Foundation
import CoreLocationEngine

extension CLLocation {
    /// The location an engine fix stands for, with every field: ellipsoidal altitude, floor, and source
    /// information (always present: a fix knows whether it was simulated or came from an accessory).
    package convenience init(fix: Fix) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: fix.latitude, longitude: fix.longitude),
            altitude: fix.altitude,
            ellipsoidalAltitude: fix.ellipsoidalAltitude,
            horizontalAccuracy: fix.horizontalAccuracy,
            verticalAccuracy: fix.verticalAccuracy,
            course: fix.course,
            courseAccuracy: fix.courseAccuracy,
            speed: fix.speed,
            speedAccuracy: fix.speedAccuracy,
            timestamp: fix.timestamp,
            floor: fix.floor.map { CLFloor(level: $0) },
            sourceInformation: CLLocationSourceInformation(
                softwareSimulationState: fix.isSimulated, externalAccessoryState: fix.isFromAccessory,
                fused: fix.isFused
            )
        )
    }
}

extension Fix {
    /// The engine's view of a location. A location without source information maps to a fix that is
    /// neither simulated nor from an accessory.
    package init(_ location: CLLocation) {
        self.init(
            latitude: location.coordinate.latitude,
            longitude: location.coordinate.longitude,
            altitude: location.altitude,
            ellipsoidalAltitude: location.ellipsoidalAltitude,
            horizontalAccuracy: location.horizontalAccuracy,
            verticalAccuracy: location.verticalAccuracy,
            course: location.course,
            courseAccuracy: location.courseAccuracy,
            speed: location.speed,
            speedAccuracy: location.speedAccuracy,
            timestamp: location.timestamp,
            floor: location.floor?.level,
            isSimulated: location.sourceInformation?.isSimulatedBySoftware ?? false,
            isFromAccessory: location.sourceInformation?.isProducedByAccessory ?? false,
            isFused: location.sourceInformation?.isFused ?? false
        )
    }
}
