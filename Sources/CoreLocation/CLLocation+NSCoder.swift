import Foundation

extension NSCoder {
    /// The object under `key`, or nil when the archive has none. swift-corelibs-foundation's
    /// `decodeObject(of:forKey:)` fails the whole secure decode for an absent key, where Apple's returns nil;
    /// every optional object in the façade's archives is read through this.
    func decodeIfPresent<T: NSObject & NSCoding>(_ type: T.Type, forKey key: String) -> T? {
        containsValue(forKey: key) ? decodeObject(of: type, forKey: key) : nil
    }

    /// The string under `key`, or nil when the archive has none.
    func decodeStringIfPresent(forKey key: String) -> String? {
        decodeIfPresent(NSString.self, forKey: key).map { String(describing: $0) }
    }
}
