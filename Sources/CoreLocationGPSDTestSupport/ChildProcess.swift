import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A test's child process: Foundation's `Process` surface, spawned and reaped without Foundation.
///
/// Foundation's `Process` learns that a child exited when a socket the child inherited reads end of
/// file, and then reaps it with a blocking `waitpid` on one manager thread shared by every `Process`
/// in the test runner. A child that closes the descriptors it inherited while it keeps running
/// (`systemd-socket-activate` does, measured) holds that thread in `waitpid` for its whole life,
/// and no other child's exit is noticed meanwhile: zombies, and every `waitUntilExit` spinning. A
/// child spawned by another thread between a `Process`'s `socketpair` and its `close` inherits that
/// socket too, and hides the exit for as long as it runs. The CI met both as a system pass that
/// never ended. Here each child gets a thread of its own that waits for that child only, and every
/// child starts with only its three standard descriptors, so no child can hide another's exit.
///
/// Like Foundation's, the child inherits the test runner's signal mask, in which SIGTERM is blocked:
/// `terminate()` is not heard by a child that does not install its own handler (locationd does), and
/// tests that let a `RunningApp` go out of scope rely on that to keep the app running.
public final class ChildProcess: Sendable {
    private struct State: ~Copyable {
        var executableURL: URL?
        var arguments: [String]?
        var environment: [String: String]?
        var currentDirectoryURL: URL?
        var standardInput = Stream.inherit
        var standardOutput = Stream.inherit
        var standardError = Stream.inherit
        var terminationHandler: (@Sendable (ChildProcess) -> Void)?
        var processIdentifier: Int32 = 0
        var exit: (status: Int32, reason: Process.TerminationReason)?
    }

    // The lock also orders `kill` before reaping: a signal is sent only while the child is unreaped,
    // so a pid the kernel has handed to another process is never signalled.
    private let state = Mutex(State())
    private let exited = DispatchSemaphore(value: 0)

    public init() {}

    public var executableURL: URL? {
        get { state.withLock { $0.executableURL } }
        set { state.withLock { $0.executableURL = newValue } }
    }
    public var arguments: [String]? {
        get { state.withLock { $0.arguments } }
        set { state.withLock { $0.arguments = newValue } }
    }
    public var environment: [String: String]? {
        get { state.withLock { $0.environment } }
        set { state.withLock { $0.environment = newValue } }
    }
    public var currentDirectoryURL: URL? {
        get { state.withLock { $0.currentDirectoryURL } }
        set { state.withLock { $0.currentDirectoryURL = newValue } }
    }
    public var standardInput: Any? {
        get { state.withLock { $0.standardInput }.value }
        set {
            let stream = Stream(newValue)
            state.withLock { $0.standardInput = stream }
        }
    }
    public var standardOutput: Any? {
        get { state.withLock { $0.standardOutput }.value }
        set {
            let stream = Stream(newValue)
            state.withLock { $0.standardOutput = stream }
        }
    }
    public var standardError: Any? {
        get { state.withLock { $0.standardError }.value }
        set {
            let stream = Stream(newValue)
            state.withLock { $0.standardError = stream }
        }
    }
    /// Called on the reaping thread once the child has exited.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)? {
        get { state.withLock { $0.terminationHandler } }
        set { state.withLock { $0.terminationHandler = newValue } }
    }

    public var processIdentifier: Int32 { state.withLock { $0.processIdentifier } }
    public var isRunning: Bool { state.withLock { $0.processIdentifier > 0 && $0.exit == nil } }
    /// The exit status, or the signal that ended the child; 0 while it runs.
    public var terminationStatus: Int32 { state.withLock { $0.exit?.status ?? 0 } }
    public var terminationReason: Process.TerminationReason { state.withLock { $0.exit?.reason ?? .exit } }

    public func run() throws {
        let (path, argv, environment, directory, stdio) = try state.withLock { state in
            guard state.processIdentifier == 0 else { throw CocoaError(.executableLoad) }
            guard let path = state.executableURL?.path else { throw CocoaError(.fileNoSuchFile) }
            let argv = [path] + (state.arguments ?? [])
            let environment = (state.environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
            let stdio = [
                state.standardInput.source(reading: true),
                state.standardOutput.source(reading: false),
                state.standardError.source(reading: false),
            ]
            return (path, argv, environment, state.currentDirectoryURL?.path, stdio)
        }
        guard access(path, X_OK) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT) }

        var nullDevice: Int32 = -1
        defer { if nullDevice >= 0 { close(nullDevice) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in stdio.enumerated() {
            switch source {
            case .inherit: continue
            case .nullDevice:
                if nullDevice < 0 { nullDevice = open("/dev/null", O_RDWR | O_CLOEXEC) }
                posix_spawn_file_actions_adddup2(&actions, nullDevice, Int32(target))
            case let .descriptor(fd):
                posix_spawn_file_actions_adddup2(&actions, fd, Int32(target))
            }
        }
        try Self.closeFrom3(&actions)
        if let directory { try Self.changeDirectory(&actions, directory) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as Foundation's `Process` does: a ^C at the test runner is not the child's.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))

        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        let result = posix_spawn(&pid, path, &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }

        // The parent's copies of the child's pipe ends, closed as Foundation does: a reader then sees
        // end of file when the child exits.
        state.withLock { state in
            state.processIdentifier = pid
            if case let .pipe(pipe) = state.standardInput { pipe.fileHandleForReading.closeFile() }
            if case let .pipe(pipe) = state.standardOutput { pipe.fileHandleForWriting.closeFile() }
            if case let .pipe(pipe) = state.standardError { pipe.fileHandleForWriting.closeFile() }
        }
        let spawned = pid
        let reaper = Thread { [self] in reap(spawned) }
        reaper.name = "ChildProcess \(spawned)"
        reaper.start()
    }

    /// Waits for the child's exit without reaping it, then reaps it under the lock `kill` takes.
    private func reap(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        let handler = state.withLock { state -> (@Sendable (ChildProcess) -> Void)? in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let signal = status & 0x7f
            state.exit = signal == 0 ? ((status >> 8) & 0xff, .exit) : (signal, .uncaughtSignal)
            return state.terminationHandler
        }
        exited.signal()
        handler?(self)
    }

    /// Blocks the calling thread until the child has exited (at once when it has).
    public func waitUntilExit() {
        guard state.withLock({ $0.processIdentifier > 0 }) else { return }
        exited.wait()
        exited.signal()
    }

    /// Blocks at most `timeout` seconds until the child has exited; whether it has.
    public func waitUntilExit(timeout: Double) -> Bool {
        guard state.withLock({ $0.processIdentifier > 0 }) else { return true }
        guard exited.wait(timeout: .now() + timeout) == .success else { return false }
        exited.signal()
        return true
    }

    /// Sends `signal` unless the child has been reaped; whether it was sent.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        state.withLock { state in
            guard state.processIdentifier > 0, state.exit == nil else { return false }
            return Glibc.kill(state.processIdentifier, signal) == 0
        }
    }

    public func terminate() { signal(SIGTERM) }
    public func interrupt() { signal(SIGINT) }

    private enum Source { case inherit, nullDevice, descriptor(Int32) }

    /// A standard stream as Foundation's `Process` takes it: a `Pipe`, a `FileHandle`, or nil for /dev/null.
    private enum Stream: Sendable {
        case inherit, nullDevice, pipe(Pipe), handle(FileHandle)

        init(_ value: Any?) {
            switch value {
            case let pipe as Pipe: self = .pipe(pipe)
            case let handle as FileHandle:
                if handle === FileHandle.nullDevice {
                    self = .nullDevice
                } else if handle === FileHandle.standardInput || handle === FileHandle.standardOutput
                    || handle === FileHandle.standardError
                {
                    self = .inherit
                } else {
                    self = .handle(handle)
                }
            default: self = .nullDevice
            }
        }

        var value: Any? {
            switch self {
            case .inherit, .nullDevice: nil
            case let .pipe(pipe): pipe
            case let .handle(handle): handle
            }
        }

        func source(reading: Bool) -> Source {
            switch self {
            case .inherit: .inherit
            case .nullDevice: .nullDevice
            case let .pipe(pipe): .descriptor(reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor)
            case let .handle(handle): .descriptor(handle.fileDescriptor)
            }
        }
    }

    // glibc has both since 2.34 (Debian 12 ships 2.36), but its headers declare them only for
    // _GNU_SOURCE, which Swift's Glibc module does not define: they are looked up by name.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static func symbol<F>(_ name: String, as type: F.Type) -> F? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(address, to: type)
    }

    private static func closeFrom3(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let closeFrom = symbol("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self) else {
            throw POSIXError(.ENOSYS)
        }
        let result = closeFrom(&actions, 3)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    }

    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, _ directory: String) throws {
        guard let change = symbol("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self) else {
            throw POSIXError(.ENOSYS)
        }
        let result = change(&actions, directory)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
    }
}

extension ChildProcess {
    /// Whether `pid` has exited: no longer listed, or a zombie waiting to be reaped whose threads
    /// have all ended. A SIGKILLed process's main thread turns zombie as soon as it ends, while other
    /// threads may still be finishing (one in an `fsync`, say) and the process's descriptors — a
    /// listening socket — stay open until the last one does; the kernel lists those threads under
    /// `/proc/PID/task` until then. (CI's red run of BackgroundDaemonKillTests: a daemon started
    /// "after" such a kill found the old socket still answering and refused to start.)
    public static func hasExited(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        let state = stat[close...].dropFirst(2).first
        guard state == "Z" || state == "X" else { return false }
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.allSatisfy { $0 == "\(pid)" }
    }

    /// Waits at most `timeout` seconds, polling every 5 ms, until `pid` has exited; false if it has not.
    @discardableResult
    public static func waitExited(_ pid: Int32, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !hasExited(pid) {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Reads `handle` up to its first newline (a child saying which port it listens on) on a thread of its
    /// own, so a slow start holds no pool thread; nil when the child closes it first.
    public static func firstLine(of handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    line.append(chunk)
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
    }

    /// Sends `signal` (SIGKILL by default) unless the child is reaped already, and waits at most
    /// `timeout` seconds until it has exited. A killed child is gone in milliseconds, so the caller's
    /// thread is held only that long.
    @discardableResult
    public static func kill(_ process: ChildProcess, signal: Int32 = SIGKILL, timeout: Double = 5) -> Bool {
        guard process.signal(signal) else { return true }
        return process.waitUntilExit(timeout: timeout)
    }

    /// `kill(_:signal:timeout:)` for a pid this class did not start.
    @discardableResult
    public static func kill(_ pid: Int32, signal: Int32 = SIGKILL, timeout: Double = 5) -> Bool {
        guard pid > 0 else { return true }
        _ = Glibc.kill(pid, signal)
        return waitExited(pid, timeout: timeout)
    }
}
