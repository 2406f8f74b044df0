import CoreLocationDaemonProtocol
import CoreLocationFuzzSupport
import Foundation

// A libFuzzer target for locationd's frame and message decoders, the boundary between users (decision 0068).
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzDaemonFrames
//   .build/release/CoreLocationFuzzDaemonFrames -max_len=1024 CORPUS_DIR        (see scripts/fuzz.sh)
//
// Input: a byte stream as a socket delivers it (frames), and the same bytes as one frame's payload (JSON), so
// the fuzzer reaches the message decoders without having to get a length prefix right first.

/// What no input may break: the frame decoder yields the same frames and the same failure whether the bytes come
/// whole, one at a time or in two pieces; every payload is read as each message the daemon reads (`ClientMessage`)
/// and each the clients read (`DaemonMessage`), and as a version-1 frame; a message that decodes encodes again, and
/// that encoding decodes to a message that encodes to the same bytes (nothing accepted is lost or invented); a
/// delivery event's frame from the hand-written fast path (`DeliveryJSON`, `deliveryFrame`) is byte for byte
/// the encoder's.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let all = Array(bytes)
    let whole = frames(of: [all[...]])
    let dripped = frames(of: all.indices.map { all[$0..<($0 + 1)] })
    precondition(whole == dripped, "the frame decoder depends on how the bytes arrive (one at a time)")
    let cut = all.isEmpty ? 0 : Int(all[0]) % all.count
    let split = frames(of: [all[..<cut], all[cut...]])
    precondition(whole == split, "the frame decoder depends on how the bytes arrive (cut at \(cut))")

    for payload in whole.frames + [all] {
        check(ClientMessage.self, payload)
        if let message = check(DaemonMessage.self, payload),
            case let .event(nil, .client(client, .delivery(delivery))) = message
        {
            let fast = DaemonProtocol.deliveryFrame(client: client, encodedDelivery: DeliveryJSON.encode(delivery))
            let encoder = try? DaemonProtocol.frame(message)
            precondition(fast == encoder, "deliveryFrame differs from the encoder")
        }
        _ = DaemonProtocol.version1(of: payload)
    }
}

struct Framed: Equatable {
    var frames: [[UInt8]] = []
    var failure: FrameDecoder.Failure?
}

/// The frames a decoder yields from `pieces`, appended one after the other, until it fails.
func frames(of pieces: [ArraySlice<UInt8>]) -> Framed {
    var decoder = FrameDecoder()
    var result = Framed()
    for piece in pieces {
        decoder.append(piece)
        do {
            while let frame = try decoder.next() { result.frames.append(frame) }
        } catch {
            result.failure = error
            return result
        }
    }
    return result
}

/// Decodes `payload` as `Message`; a message that decodes must reach a fixed point of encoding.
@discardableResult
func check<Message: Codable & Equatable>(_ type: Message.Type, _ payload: [UInt8]) -> Message? {
    let message: Message
    do {
        message = try DaemonProtocol.decode(Message.self, from: payload)
    } catch is DecodingError {
        return nil
    } catch {
        preconditionFailure("the decoder threw something other than a DecodingError: \(error)")
    }
    do {
        let encoded = try DaemonProtocol.encode(message)
        let again = try DaemonProtocol.decode(Message.self, from: encoded)
        let reencoded = try DaemonProtocol.encode(again)
        precondition(reencoded == encoded, "decode(encode(m)) encodes differently")
    } catch {
        preconditionFailure("a decoded \(Message.self) does not encode and decode again: \(error)")
    }
    return message
}

@main
enum FuzzEntry {
    static func main() {
        exit(
            FuzzDriver.main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
                fuzzOne(UnsafeBufferPointer(start: data, count: size))
                return 0
            })
    }
}
