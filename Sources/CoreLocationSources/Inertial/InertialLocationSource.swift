import CoreLocationEngine

/// An `InertialSource` as one of the engine's sources (kind `inertial`), so that the engine powers it and the
/// runtime hands its samples on like any source's events: the engine turns it on while it powers a GNSS-class
/// source for some client and off otherwise (decision 0095, Wiring), locationd shares it between apps as it shares
/// every source, and `locationctl status` lists it with its on-time.
public final class InertialLocationSource: LocationSource {
    public let inertial: any InertialSource
    public let descriptor: SourceDescriptor

    public init(_ inertial: any InertialSource) {
        self.inertial = inertial
        // An IMU gives no position: expectedAccuracy is never used to choose it; finite (10⁹ m) because descriptors
        // travel as JSON (status, the daemon's protocol). A MEMS IMU at 100 Hz draws about a milliwatt.
        descriptor = SourceDescriptor(
            id: SourceID("inertial:\(inertial.name)"), kind: SourceDescriptor.inertialKind, expectedAccuracy: 1e9,
            powerCost: 1, isSimulated: inertial.isSimulated)
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        inertial.start { event in
            switch event {
            case let .samples(samples): handler(.inertial(samples))
            case let .unavailable(reason): handler(.unavailable(reason: reason))
            }
        }
    }

    public func stop() { inertial.stop() }
}
