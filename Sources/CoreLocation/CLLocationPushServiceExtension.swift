import Foundation

/// Apple's location push service extension. Location pushes come through Apple's push service,
/// which Linux does not have: `startMonitoringLocationPushes` answers `.unsupportedPlatform`.
public protocol CLLocationPushServiceExtension: NSObjectProtocol {
    func didReceiveLocationPushPayload(_ payload: [String: Any]) async
    func serviceExtensionWillTerminate()
}

extension CLLocationPushServiceExtension {
    public func serviceExtensionWillTerminate() {}
}
