// Temporary copy; the storage branch owns this file and replaces it on merge.
import Foundation

public enum AuthorizationLevel: String, Codable, Sendable, CaseIterable {
    case notDetermined, denied, restricted, whenInUse, always
}

public enum AccuracyLevel: String, Codable, Sendable, CaseIterable {
    case full, reduced
}
