import CoreLocationDBus
import CoreLocationFuzzSupport
import Foundation

// A libFuzzer target for the native D-Bus message decoder (docs/decisions/0058).
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzDBusMessage
//   .build/release/CoreLocationFuzzDBusMessage -max_len=4096 CORPUS_DIR        (see scripts/fuzz.sh)
//
// Input: the bytes of one message (or several, as a stream).

/// What no input may break: the decoder throws only `DBusWireError`; a message it accepts encodes again, and
/// decoding that gives the same bytes once more (a fixed point, so nothing accepted is lost or invented); the
/// stream reader yields the same messages whether the bytes come whole or one at a time; the signature parser
/// takes the input as text without crashing.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let all = Array(bytes)
    do {
        let message = try DBusMessage.decode(all)
        let encoded: [UInt8]
        do {
            encoded = try message.encode()
        } catch {
            preconditionFailure("a decoded message does not encode: \(error)")
        }
        do {
            let again = try DBusMessage.decode(encoded)
            let reencoded = try again.encode()
            precondition(reencoded == encoded, "decode(encode(m)) encodes differently")
            precondition(again.body.count == message.body.count, "the body changed its length")
        } catch {
            preconditionFailure("our own encoding does not decode: \(error)")
        }
    } catch is DBusWireError {
    } catch {
        preconditionFailure("the decoder threw something other than a DBusWireError: \(error)")
    }

    var whole = DBusFrameReader()
    whole.append(all)
    let (wholeMessages, wholeFailed) = drain(&whole)
    var dripped = DBusFrameReader()
    var drippedMessages: [[UInt8]] = []
    var failed = false
    for byte in all where !failed {
        withUnsafeBytes(of: byte) { dripped.append($0) }
        let (messages, error) = drain(&dripped)
        drippedMessages += messages
        failed = error
    }
    precondition(
        wholeMessages == drippedMessages && wholeFailed == failed,
        "the stream reader depends on how the bytes arrive")

    _ = try? DBusSignature.parse(bytes: Array(all.prefix(300)))
}

/// The messages a reader yields (re-encoded, so doubles compare by bits) until it needs more bytes or fails.
func drain(_ reader: inout DBusFrameReader) -> ([[UInt8]], Bool) {
    var messages: [[UInt8]] = []
    while true {
        do {
            guard let message = try reader.next() else { return (messages, false) }
            messages.append((try? message.encode()) ?? [])
        } catch is DBusWireError {
            return (messages, true)
        } catch {
            preconditionFailure("the stream reader threw something other than a DBusWireError: \(error)")
        }
    }
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
