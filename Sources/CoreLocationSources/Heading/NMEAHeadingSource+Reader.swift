import Foundation
import CoreLocationEngine

#if canImport(Glibc)
    import Glibc
#endif

extension NMEAHeadingSource {
    /// The reader thread of one `start`: reads until `stop` (checked at least every 0.25 s), reopening
    /// the input after failures.
    func run(generation: Int) {
        while state.isCurrent(generation) {
            switch input {
            case .file(let path, _):
                guard let data = FileManager.default.contents(atPath: path) else {
                    guard report("cannot read \(path)", generation: generation) else { return }
                    pause(generation: generation)
                    continue
                }
                guard feed(Array(data), generation: generation) else { return }
                // A recorded log is read once; the source then has nothing more to say.
                _ = report("end of \(path)", generation: generation)
                return
            case .serial(let path, let baud):
                readStream(.serial(path: path, baud: baud), baud: baud ?? 9_600, generation: generation)
            case .tcp(let host, let port):
                readStream(.tcp(host: host, port: port), baud: nil, generation: generation)
            case .stdin:
                readStream(.descriptor(0, label: "stdin"), baud: nil, generation: generation)
            }
        }
    }

    private func readStream(_ endpoint: NMEAEndpoint, baud: Int?, generation: Int) {
        let channel: NMEAChannel
        do throws(NMEASourceError) {
            channel = try NMEAChannel.open(endpoint, baud: baud)
        } catch {
            guard report(error.message, generation: generation) else { return }
            pause(generation: generation)
            return
        }
        defer { channel.close() }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while state.isCurrent(generation) {
            var descriptor = pollfd(fd: channel.fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 250)
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { read(channel.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                guard feed(Array(buffer[0..<count]), generation: generation) else { return }
                continue
            }
            if count < 0, errno == EAGAIN || errno == EINTR { continue }
            guard report("\(endpoint) closed", generation: generation) else { return }
            pause(generation: generation)
            return
        }
    }

    /// Waits `reopenInterval` seconds, or less when stopped.
    private func pause(generation: Int) {
        var left = reopenInterval
        while left > 0, state.isCurrent(generation) {
            let step = min(left, 0.25)
            usleep(UInt32(step * 1_000_000))
            left -= step
        }
    }
}
