import Foundation

/// The physical orientation of the device, used as the reference for headings. Raw values as Apple's.
public enum CLDeviceOrientation: Int32, Sendable {
    case unknown = 0
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeLeft = 3
    case landscapeRight = 4
    case faceUp = 5
    case faceDown = 6
}
