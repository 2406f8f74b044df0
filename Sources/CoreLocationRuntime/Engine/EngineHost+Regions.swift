import Foundation
import CoreLocationEngine
import CoreLocationStorage

extension EngineHost {
    /// Hands the engine the regions storage kept for this app.
    func restoreRegions() {
        guard let regionStore else { return }
        let appID = authorization.identity.id
        do {
            let stored = try regionStore.regions(appID: appID)
            if !stored.isEmpty { input(.restoreRegions(stored)) }
        } catch {
            logger.error("Cannot read the monitored regions; they are not restored", metadata: ["error": "\(error)"])
        }
    }

    /// Performs a persistence action of the engine.
    func persist(_ action: EngineAction) {
        guard let regionStore else { return }
        let appID = authorization.identity.id
        do {
            switch action {
            // CLMonitor conditions (a non-empty group) persist as the monitor's records instead.
            case .storeRegion(let stored) where stored.region.group.isEmpty:
                try regionStore.save(stored, appID: appID)
            case .forgetRegion(let identifier, let group) where group.isEmpty:
                try regionStore.removeRegion(identifier: identifier, appID: appID)
            default: break
            }
        } catch {
            logger.error("Cannot persist a monitored region", metadata: ["error": "\(error)"])
        }
    }
}
