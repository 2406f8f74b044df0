import Foundation

/// NMEA sentences for one epoch at a fixed place, stamped with the current UTC time (a receiver's
/// live output), with their checksums.
enum NMEAEpoch {
    /// 52°31.2' N 13°24.3' E: 52.520000, 13.405000.
    static let latitude = "5231.2000"
    static let longitude = "01324.3000"
    static let expected = "52.520000 13.405000"

    static func sentences(at date: Date = Date()) -> [String] {
        sentences(latitude: latitude, longitude: longitude, at: date)
    }

    /// RMC + GGA at a place given in decimal degrees (north and east), stamped `date`.
    static func sentences(latitude: Double, longitude: Double, at date: Date = Date()) -> [String] {
        func angle(_ value: Double, degreeDigits: Int) -> String {
            let degrees = Int(value)
            let minutes = (value - Double(degrees)) * 60
            return String(format: "%0\(degreeDigits)d%07.4f", degrees, minutes)
        }
        return sentences(
            latitude: angle(latitude, degreeDigits: 2), longitude: angle(longitude, degreeDigits: 3), at: date)
    }

    /// RMC + GGA with NMEA's `ddmm.mmmm` / `dddmm.mmmm` fields, stamped `date`.
    static func sentences(latitude: String, longitude: String, at date: Date) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let time = String(
            format: "%02d%02d%02d.%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0, (c.nanosecond ?? 0) / 10_000_000)
        let day = String(format: "%02d%02d%02d", c.day ?? 1, c.month ?? 1, (c.year ?? 2000) % 100)
        return [
            "GPRMC,\(time),A,\(latitude),N,\(longitude),E,0.0,0.0,\(day),,,A",
            "GPGGA,\(time),\(latitude),N,\(longitude),E,1,08,0.9,34.0,M,40.0,M,,",
        ].map { body in
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + String(format: "*%02X", checksum)
        }
    }
}

/// A serial receiver that can be plugged in and out: a pseudo-terminal whose slave is linked at
/// `path` while plugged in, with a thread writing an epoch every `interval` seconds.
final class PlugInReceiver: @unchecked Sendable {
    // @unchecked: `master` and `running` are only touched under `lock`.
    let path: String
    private let lock = NSLock()
    private var master: Int32 = -1
    private var running = false

    init(path: String) { self.path = path }

    func plugIn(interval: Double = 0.2) throws {
        // posix_openpt/unlockpt/ptsname by hand (Glibc's module does not export them): /dev/ptmx,
        // TIOCSPTLCK 0 (unlock), TIOCGPTN (the slave's number).
        let fd = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw CocoaError(.fileNoSuchFile) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(fd, 0x4004_5431, &unlock) == 0, ioctl(fd, 0x8004_5430, &number) == 0 else {
            close(fd)
            throw CocoaError(.fileNoSuchFile)
        }
        let slave = "/dev/pts/\(number)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: slave)
        lock.withLock {
            master = fd
            running = true
        }
        let thread = Thread { [self] in
            while true {
                let bytes = Array(NMEAEpoch.sentences().map { $0 + "\r\n" }.joined().utf8)
                // Written under the lock, so never to a descriptor `unplug` closed (and the kernel reused).
                let plugged = lock.withLock { () -> Bool in
                    guard running else { return false }
                    _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
                    return true
                }
                guard plugged else { return }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.start()
    }

    /// The device disappears: the link goes and the terminal hangs up.
    func unplug() {
        let fd = lock.withLock {
            defer {
                running = false
                master = -1
            }
            return master
        }
        try? FileManager.default.removeItem(atPath: path)
        if fd >= 0 { close(fd) }
    }

    deinit { unplug() }
}
