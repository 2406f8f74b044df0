/// One D-Bus message: the fixed header, the header fields, and the body's values.
package struct DBusMessage: Sendable, Hashable {
    package enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    package struct Flags: OptionSet, Sendable, Hashable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let noReplyExpected = Flags(rawValue: 0x1)
        package static let noAutoStart = Flags(rawValue: 0x2)
        package static let allowInteractiveAuthorization = Flags(rawValue: 0x4)
    }

    package var kind: Kind
    package var flags: Flags = []
    /// Set by the connection when it sends the message; never 0 on the wire.
    package var serial: UInt32 = 0
    package var path: String?
    package var interface: String?
    package var member: String?
    package var errorName: String?
    package var replySerial: UInt32?
    package var destination: String?
    package var sender: String?
    /// The body's signature ("" for no body); on reading, the SIGNATURE field.
    package var signature: String = ""
    package var unixFDs: UInt32?
    package var body: [DBusValue] = []

    package init(kind: Kind) { self.kind = kind }

    /// The header field codes ("Header Fields" in the specification).
    enum Field: UInt8 {
        case path = 1
        case interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    package static func methodCall(
        destination: String?, path: String, interface: String?, member: String, body: [DBusValue] = []
    ) -> DBusMessage {
        var message = DBusMessage(kind: .methodCall)
        message.destination = destination
        message.path = path
        message.interface = interface
        message.member = member
        message.body = body
        return message
    }

    package static func signal(
        path: String, interface: String, member: String, destination: String? = nil, body: [DBusValue] = []
    ) -> DBusMessage {
        var message = DBusMessage(kind: .signal)
        message.path = path
        message.interface = interface
        message.member = member
        message.destination = destination
        message.body = body
        return message
    }

    /// A method return to `call`, addressed to its sender.
    package static func methodReturn(to call: DBusMessage, body: [DBusValue] = []) -> DBusMessage {
        var message = DBusMessage(kind: .methodReturn)
        message.replySerial = call.serial
        message.destination = call.sender
        message.body = body
        return message
    }

    /// An error reply to `call`, addressed to its sender, with `text` as its one string argument.
    package static func error(to call: DBusMessage, name: String, text: String) -> DBusMessage {
        var message = DBusMessage(kind: .error)
        message.replySerial = call.serial
        message.destination = call.sender
        message.errorName = name
        // A NUL would make the text unsendable; the name alone carries the meaning.
        message.body = [.string(text.split(separator: "\u{0}", omittingEmptySubsequences: false).joined())]
        return message
    }
}
