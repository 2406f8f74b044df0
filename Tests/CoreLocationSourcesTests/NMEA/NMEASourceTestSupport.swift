import Foundation
import CoreLocationEngine
import Synchronization

@testable import CoreLocationSources

#if canImport(Glibc)
    import Glibc
#endif

/// Collects a source's events from any thread and lets a test wait (bounded) for a condition on
/// them: live inputs are real I/O on a reader thread, so the test waits for what it expects rather
/// than sleeping for a guessed time.
final class NMEAEventLog: @unchecked Sendable {
    // @unchecked: `events` is only touched while holding `condition` (an NSCondition).
    private let condition = NSCondition()
    private var events: [SourceEvent] = []

    var handler: @Sendable (SourceEvent) -> Void {
        { [self] event in
            condition.lock()
            events.append(event)
            condition.broadcast()
            condition.unlock()
        }
    }

    var all: [SourceEvent] {
        condition.lock()
        defer { condition.unlock() }
        return events
    }

    var fixes: [Fix] {
        all.compactMap {
            if case .fix(let fix) = $0 { return fix }
            return nil
        }
    }

    var unavailableReasons: [String] {
        all.compactMap {
            if case .unavailable(let reason) = $0 { return reason }
            return nil
        }
    }

    /// Waits until `predicate` holds on the events, or `timeout` seconds pass; returns whether it held.
    @discardableResult
    func wait(timeout: Double = 10, until predicate: ([SourceEvent]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(events) {
            if !condition.wait(until: deadline) { return predicate(events) }
        }
        return true
    }
}

/// Waits (bounded) for a condition that is not an event, such as a device being open.
func waitFor(timeout: Double = 10, _ predicate: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !predicate() {
        if Date() > deadline { return false }
        usleep(2_000)
    }
    return true
}

/// A pseudo-terminal pair: the master end the test writes to, the slave path the source opens.
///
/// `close()` closes the master once however often it is called: a test that unplugs the device and also
/// closes it in a `defer` would otherwise close the descriptor number a second time, after another suite
/// running in parallel may have been given it (that closed the silence test's own terminal or wake-up socket).
final class PseudoTerminal: Sendable {
    private let masterDescriptor: Mutex<Int32>
    let slavePath: String
    var master: Int32 { masterDescriptor.withLock { $0 } }

    // Glibc declares posix_openpt/grantpt/unlockpt/ptsname_r only under _XOPEN_SOURCE, which the
    // Swift module map does not set, so they are looked up at run time.
    private typealias OpenPT = @convention(c) (Int32) -> Int32
    private typealias PTSName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    init?() {
        guard let openpt = Self.symbol("posix_openpt", as: OpenPT.self),
            let grantpt = Self.symbol("grantpt", as: OpenPT.self),
            let unlockpt = Self.symbol("unlockpt", as: OpenPT.self),
            let ptsname = Self.symbol("ptsname_r", as: PTSName.self)
        else { return nil }
        let master = openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0 else { return nil }
        var name = [CChar](repeating: 0, count: 128)
        guard ptsname(master, &name, name.count) == 0 else { return nil }
        self.masterDescriptor = Mutex(master)
        self.slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }

    func close() {
        masterDescriptor.withLock { master in
            if master >= 0 { _ = Glibc.close(master) }
            master = -1
        }
    }

    /// The slave's current termios, read through a descriptor of our own.
    func slaveSettings() -> termios? {
        let fd = open(slavePath, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { _ = Glibc.close(fd) }
        var settings = termios()
        return tcgetattr(fd, &settings) == 0 ? settings : nil
    }
}

func inputSpeed(_ settings: termios) -> speed_t {
    var copy = settings
    return cfgetispeed(&copy)
}
