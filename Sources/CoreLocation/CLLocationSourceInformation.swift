import Foundation

/// Where a location came from: software simulation, or an external accessory.
///
/// Immutable. `@unchecked Sendable` is safe: the stored properties are `let`s of `Sendable` types.
open class CLLocationSourceInformation: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    private let simulated: Bool
    private let accessory: Bool
    private let fused: Bool

    /// True when software made the location up (the simulator, a replayed track).
    open var isSimulatedBySoftware: Bool { simulated }

    /// True when the location came from an external accessory (a receiver on a serial line, gpsd).
    open var isProducedByAccessory: Bool { accessory }

    /// Not Apple's (its class has only the two properties above; a Linux addition, so code written for Apple's
    /// compiles unchanged and code that reads it is Linux-only): true when the engine fused the location from GNSS
    /// and an IMU, or dead-reckoned it through a GNSS outage (decision 0095; issue 40: "sourceInformation says so").
    /// Not archived: Apple's archive has no key for it.
    public var isFused: Bool { fused }

    /// Neither simulated nor from an accessory.
    override public init() {
        self.simulated = false
        self.accessory = false
        self.fused = false
        super.init()
    }

    public init(softwareSimulationState isSoftware: Bool, externalAccessoryState isAccessory: Bool) {
        self.simulated = isSoftware
        self.accessory = isAccessory
        self.fused = false
        super.init()
    }

    /// Apple's initializer, and whether the engine fused the location (`isFused`).
    package init(softwareSimulationState isSoftware: Bool, externalAccessoryState isAccessory: Bool, fused: Bool) {
        self.simulated = isSoftware
        self.accessory = isAccessory
        self.fused = fused
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(isSimulatedBySoftware, forKey: "isSimulatedBySoftware")
        coder.encode(isProducedByAccessory, forKey: "isProducedByAccessory")
    }

    public required init?(coder: NSCoder) {
        self.simulated = coder.decodeBool(forKey: "isSimulatedBySoftware")
        self.accessory = coder.decodeBool(forKey: "isProducedByAccessory")
        self.fused = false
        super.init()
    }

    /// The object itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}
