import Foundation

/// What a gpsd client asks for in `?WATCH`: the fields gpsd 3.22 echoes in its `WATCH` reply that this front door
/// honours (decision 0077; `nmea` relays a live receiver's sentences, decision 0090; `raw`, `split24` and `pps` are
/// answered false/0).
struct GPSDWatchPolicy: Sendable, Equatable {
    var enable = false
    var json = false
    var nmea = false
    var scaled = false
    var timing = false
    var device: String?

    /// `?WATCH={...}` changes only the fields it names, as in gpsd.
    mutating func apply(_ object: [String: Any]) {
        if let value = object["enable"] as? Bool { enable = value }
        if let value = object["json"] as? Bool { json = value }
        if let value = object["nmea"] as? Bool { nmea = value }
        if let value = object["scaled"] as? Bool { scaled = value }
        if let value = object["timing"] as? Bool { timing = value }
        if let value = object["device"] as? String { device = value }
    }

    /// gpsd's rule: `enable` without a word about `json` means JSON (`?WATCH={"enable":true}` as gpspipe -w sends).
    mutating func applyEnable(_ object: [String: Any]) {
        apply(object)
        if enable, object["json"] == nil, object["nmea"] == nil, object["raw"] == nil { json = true }
    }
}

/// One request of gpsd's protocol: `?NAME;` or `?NAME={json};` (gpsd_json(5)).
enum GPSDRequest: Equatable {
    case version
    case devices
    case poll
    /// `?WATCH;` (nil: report the policy) or `?WATCH={...};`, the object's raw text.
    case watch(String?)
    /// The error message gpsd would give.
    case invalid(String)

    /// The longest request line the front door reads (decision 0077); longer ones are answered with one `ERROR`
    /// and discarded up to their end, holding no more than this.
    static let maximumLineBytes = 1024

    /// The requests of one line. Several may share a line (`?WATCH={...};?POLL;`); text that is not a request
    /// ends the line with an `ERROR`, as gpsd answers "Unrecognized request".
    static func parse(line: Substring) -> [GPSDRequest] {
        var requests: [GPSDRequest] = []
        var rest = line.drop { $0 == " " || $0 == "\t" }
        while !rest.isEmpty {
            guard rest.first == "?" else {
                requests.append(.invalid("Unrecognized request '\(rest.prefix(64))'"))
                break
            }
            let name = rest.dropFirst().prefix { $0.isLetter }
            var after = rest.dropFirst(1 + name.count)
            var body: Substring?
            if after.first == "=" {
                guard let object = jsonObject(at: after.dropFirst()) else {
                    requests.append(.invalid("Invalid ?\(name) JSON: '\(after.dropFirst().prefix(64))'"))
                    break
                }
                body = object
                after = after.dropFirst(1 + object.count)
            }
            if after.first == ";" { after = after.dropFirst() }
            switch (name, body) {
            case ("VERSION", nil): requests.append(.version)
            case ("DEVICES", nil): requests.append(.devices)
            case ("POLL", nil): requests.append(.poll)
            case ("WATCH", _): requests.append(.watch(body.map(String.init)))
            default:
                requests.append(.invalid("Unrecognized request '?\(name.prefix(64))'"))
                return requests
            }
            rest = after.drop { $0 == " " || $0 == "\t" }
        }
        return requests
    }

    /// The `{...}` at the start of `text`, braces balanced outside strings; nil when it does not close.
    static func jsonObject(at text: Substring) -> Substring? {
        guard text.first == "{" else { return nil }
        var depth = 0
        var inString = false
        var escaping = false
        for index in text.indices {
            let character = text[index]
            if inString {
                if escaping {
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            switch character {
            case "\"": inString = true
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { return text[...index] }
            default: break
            }
        }
        return nil
    }

    /// The object of `?WATCH={...}` as JSON, or nil when it is not a JSON object.
    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}
