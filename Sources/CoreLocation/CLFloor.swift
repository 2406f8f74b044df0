import Foundation

/// The floor of a building a location is on.
///
/// Immutable. `@unchecked Sendable` is safe: the only stored property is a `let` of a `Sendable` type;
/// `NSObject` itself holds no state we touch. Subclasses that add mutable state must protect it.
open class CLFloor: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    private let storedLevel: Int

    /// The floor, counted from the ground floor (0); negative below ground.
    open var level: Int { storedLevel }

    /// The ground floor (level 0); for subclasses and test doubles.
    override public init() {
        self.storedLevel = 0
        super.init()
    }

    /// A floor at `level`; the engine makes these from a fix's floor.
    package init(level: Int) {
        self.storedLevel = level
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(level, forKey: "level")
    }

    public required init?(coder: NSCoder) {
        self.storedLevel = coder.decodeInteger(forKey: "level")
        super.init()
    }

    /// The floor itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    override open var description: String { "CLFloor(level: \(level))" }
}
