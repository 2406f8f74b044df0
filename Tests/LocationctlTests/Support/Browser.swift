import CoreLocationGPSDTestSupport
import Foundation
import Synchronization

/// A real browser, headless: Debian's `chromium` (installed by .ci/run). Tests that need it are
/// skipped where it is absent.
enum Browser {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Opens `file` and saves a screenshot of a `width`×`height` window at one device pixel per CSS pixel.
    static func screenshot(of file: String, width: Int, height: Int, into png: String, profile: String) async throws {
        guard let path else { throw BrowserFailure(message: "chromium is not installed") }
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
            "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "--screenshot=\(png)",
            URL(fileURLWithPath: file).absoluteString,
        ]
        let result = try await runProcess(path, arguments, limit: 90)
        guard FileManager.default.fileExists(atPath: png) else {
            throw BrowserFailure(message: "chromium wrote no screenshot (exit \(result.status)):\n\(result.output)")
        }
    }

    /// Runs a program to its end (killed after `limit` seconds), with its output and errors merged. The
    /// waiting happens on a thread of its own: chromium takes seconds, and a blocked cooperative thread is
    /// one of the test process's two.
    static func runProcess(_ path: String, _ arguments: [String], limit: Double) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runProcessBlocking(path, arguments, limit: limit) })
            }
        }
    }

    private static func runProcessBlocking(
        _ path: String, _ arguments: [String], limit: Double
    ) throws -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let exited = Mutex(false)
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            exited.withLock { if !$0 { kill(pid, SIGKILL) } }
        }
        let data = (try? pipe.fileHandleForReading.readToEnd()) ?? Data()
        process.waitUntilExit()
        exited.withLock { $0 = true }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

struct BrowserFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Pixels of a PNG file, decoded by a small stand-alone reader (python3's zlib; 8-bit RGB or RGBA,
/// non-interlaced, which is what chromium writes).
struct Screenshot {
    let width: Int
    let height: Int
    private let pixels: [UInt8]  // RGB, row by row

    struct Colour: Equatable, CustomStringConvertible {
        var red: Int
        var green: Int
        var blue: Int
        var description: String { "rgb(\(red), \(green), \(blue))" }
    }

    static let decoder = #"""
        import struct, sys, zlib
        data = open(sys.argv[1], 'rb').read()
        assert data[:8] == b'\x89PNG\r\n\x1a\n'
        pos, idat = 8, b''
        while pos < len(data):
            length, kind = struct.unpack('>I4s', data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b'IHDR':
                width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
                assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            elif kind == b'IDAT':
                idat += body
            pos += 12 + length
        channels = 3 if colour == 2 else 4
        raw = zlib.decompress(idat)
        stride = width * channels
        out = bytearray()
        previous = bytearray(stride)
        for row in range(height):
            start = row * (stride + 1)
            kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up = previous[i]
                corner = previous[i - channels] if i >= channels else 0
                if kind == 1: line[i] = (line[i] + left) & 255
                elif kind == 2: line[i] = (line[i] + up) & 255
                elif kind == 3: line[i] = (line[i] + (left + up) // 2) & 255
                elif kind == 4:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
            previous = line
            for x in range(width):
                out += line[x * channels:x * channels + 3]
        sys.stdout.buffer.write(struct.pack('>II', width, height) + bytes(out))
        """#

    init(png: String, scratch: URL) async throws {
        let script = scratch.appendingPathComponent("png-decode.py")
        try Data(Self.decoder.utf8).write(to: script)
        let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/bin/env"
        let arguments = python == "/usr/bin/env" ? ["python3", script.path, png] : [script.path, png]
        let output = scratch.appendingPathComponent("pixels.bin")
        let result = try await Browser.runProcess(
            "/bin/sh", ["-c", "\"$0\" \"$@\" > '\(output.path)'", python] + arguments, limit: 120
        )
        let bytes = [UInt8]((try? Data(contentsOf: output)) ?? Data())
        guard result.status == 0, bytes.count >= 8 else {
            throw BrowserFailure(message: "cannot decode \(png): \(result.output)")
        }
        width = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        height = bytes[4..<8].reduce(0) { $0 << 8 | Int($1) }
        pixels = Array(bytes[8...])
        guard pixels.count == width * height * 3 else {
            throw BrowserFailure(message: "\(png): \(pixels.count) bytes for \(width)×\(height) pixels")
        }
    }

    subscript(x: Double, y: Double) -> Colour {
        let column = min(width - 1, max(0, Int(x.rounded(.down))))
        let row = min(height - 1, max(0, Int(y.rounded(.down))))
        let offset = (row * width + column) * 3
        return Colour(red: Int(pixels[offset]), green: Int(pixels[offset + 1]), blue: Int(pixels[offset + 2]))
    }

    /// How many distinct colours the picture has (a blank page has one).
    var colourCount: Int {
        var seen = Set<Int>()
        for offset in stride(from: 0, to: pixels.count, by: 3) {
            seen.insert(Int(pixels[offset]) << 16 | Int(pixels[offset + 1]) << 8 | Int(pixels[offset + 2]))
        }
        return seen.count
    }
}
