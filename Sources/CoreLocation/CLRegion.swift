import Foundation
import Synchronization

/// An area that can be monitored; the abstract base of `CLCircularRegion` and `CLBeaconRegion`.
///
/// Two regions are equal when their identifiers are (Core Location identifies monitored regions by
/// identifier: adding one again replaces it).
///
/// `@unchecked Sendable` is safe: `identifier` is a `let`; the mutable `notifyOnEntry` and
/// `notifyOnExit` live in a `Mutex`, so reads and writes from any thread are serialized.
open class CLRegion: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    struct NotifyFlags: Sendable {
        var onEntry = true
        var onExit = true
    }

    private let storedIdentifier: String
    private let flags: Mutex<NotifyFlags>

    /// A region with an empty identifier; for subclasses and test doubles.
    override public init() {
        self.storedIdentifier = ""
        self.flags = Mutex(NotifyFlags())
        super.init()
    }

    /// The designated initializer of the concrete regions.
    init(identifier: String) {
        self.storedIdentifier = identifier
        self.flags = Mutex(NotifyFlags())
        super.init()
    }

    /// The name the app gave the region.
    open var identifier: String { storedIdentifier }

    /// Whether entering the region is reported. Defaults to true.
    open var notifyOnEntry: Bool {
        get { flags.withLock { $0.onEntry } }
        set { flags.withLock { $0.onEntry = newValue } }
    }

    /// Whether leaving the region is reported. Defaults to true.
    open var notifyOnExit: Bool {
        get { flags.withLock { $0.onExit } }
        set { flags.withLock { $0.onExit = newValue } }
    }

    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLRegion else { return false }
        return other.identifier == identifier
    }

    override open var hash: Int { identifier.hashValue }

    override open var description: String { "CLRegion (identifier:'\(identifier)')" }

    /// A new region with the same identifier and notification flags.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLRegion(identifier: identifier)
        copy.copyFlags(from: self)
        return copy
    }

    func copyFlags(from region: CLRegion) {
        notifyOnEntry = region.notifyOnEntry
        notifyOnExit = region.notifyOnExit
    }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(identifier as NSString, forKey: "identifier")
        coder.encode(notifyOnEntry, forKey: "notifyOnEntry")
        coder.encode(notifyOnExit, forKey: "notifyOnExit")
    }

    /// Fails when the archive has no identifier.
    public required init?(coder: NSCoder) {
        guard let identifier = coder.decodeStringIfPresent(forKey: "identifier") else { return nil }
        self.storedIdentifier = identifier
        self.flags = Mutex(
            NotifyFlags(
                onEntry: coder.decodeBool(forKey: "notifyOnEntry"),
                onExit: coder.decodeBool(forKey: "notifyOnExit")
            )
        )
        super.init()
    }
}
