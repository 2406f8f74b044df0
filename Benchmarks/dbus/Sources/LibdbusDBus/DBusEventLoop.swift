import CCoreLocationDBus
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The thread that runs one connection: it blocks in `poll(2)` on libdbus's watch descriptors and a wake-up
/// pipe, hands readiness to `dbus_watch_handle`, fires libdbus's timeouts (a call's reply timeout), and
/// dispatches what arrived — signals reach their handlers the moment their bytes do, with no polling interval.
///
/// Why not `dbus_connection_read_write_dispatch(-1)` on a thread (docs/decisions/0024): that call holds the
/// connection's I/O path while it sleeps in poll, so a message sent from another thread waits in the outgoing
/// queue until something arrives. Owning the poll lets libdbus's wake-up hook (`set_wakeup_main_function`, and
/// the watch/timeout toggles) interrupt the sleep at once.
final class DBusEventLoop: Sendable {
    private struct Timer {
        var timeout: DBusHandle
        var deadline: ContinuousClock.Instant
    }

    private struct State {
        var watches: [DBusHandle] = []
        var timers: [Timer] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw DBusCallError(.connect, "pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake()
    }

    /// Installs the watch, timeout and wake-up hooks; the connection keeps a reference to the loop until its
    /// hooks are replaced or it is freed.
    func install(on connection: OpaquePointer) -> Bool {
        let context = { Unmanaged.passRetained(self).toOpaque() }
        let release: DBusFreeFunction = { data in
            guard let data else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(data).release()
        }
        let watchesOK = dbus_connection_set_watch_functions(
            connection,
            { watch, data in
                guard let watch, let data else { return 0 }
                let loop = Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue()
                loop.state.withLock { $0.watches.append(DBusHandle(watch)) }
                loop.wake()
                return 1
            },
            { watch, data in
                guard let watch, let data else { return }
                let loop = Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue()
                loop.state.withLock { $0.watches.removeAll { $0 == DBusHandle(watch) } }
                loop.wake()
            },
            { _, data in
                guard let data else { return }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().wake()
            },
            context(), release
        )
        let timeoutsOK = dbus_connection_set_timeout_functions(
            connection,
            { timeout, data in
                guard let timeout, let data else { return 0 }
                let loop = Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue()
                let deadline = ContinuousClock.now + .milliseconds(Int(dbus_timeout_get_interval(timeout)))
                loop.state.withLock { $0.timers.append(Timer(timeout: DBusHandle(timeout), deadline: deadline)) }
                loop.wake()
                return 1
            },
            { timeout, data in
                guard let timeout, let data else { return }
                let loop = Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue()
                loop.state.withLock { $0.timers.removeAll { $0.timeout == DBusHandle(timeout) } }
                loop.wake()
            },
            { timeout, data in
                guard let timeout, let data else { return }
                let loop = Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue()
                let deadline = ContinuousClock.now + .milliseconds(Int(dbus_timeout_get_interval(timeout)))
                loop.state.withLock { state in
                    for index in state.timers.indices where state.timers[index].timeout == DBusHandle(timeout) {
                        state.timers[index].deadline = deadline
                    }
                }
                loop.wake()
            },
            context(), release
        )
        dbus_connection_set_wakeup_main_function(
            connection,
            { data in
                guard let data else { return }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().wake()
            },
            context(), release
        )
        dbus_connection_set_dispatch_status_function(
            connection,
            { _, status, data in
                guard let data, status == DBUS_DISPATCH_DATA_REMAINS else { return }
                Unmanaged<DBusEventLoop>.fromOpaque(data).takeUnretainedValue().wake()
            },
            context(), release
        )
        return watchesOK != 0 && timeoutsOK != 0
    }

    /// Runs until `stop()`; then closes and releases the connection (on this thread, so no watch is freed while
    /// the loop could still hand it to libdbus).
    func run(_ connection: OpaquePointer) {
        while true {
            let (watches, timers, stopped) = state.withLock { ($0.watches, $0.timers, $0.stopped) }
            if stopped { break }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var polled: [DBusHandle] = []
            for handle in watches where dbus_watch_get_enabled(handle.pointer) != 0 {
                let watch = handle.pointer
                let flags = dbus_watch_get_flags(watch)
                var events: Int16 = 0
                if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
                polled.append(handle)
            }
            var waitMilliseconds: Int32 = -1
            let now = ContinuousClock.now
            for timer in timers where dbus_timeout_get_enabled(timer.timeout.pointer) != 0 {
                let left = now.duration(to: timer.deadline)
                let milliseconds = max(0, Int32(clamping: left.components.seconds * 1000
                    + left.components.attoseconds / 1_000_000_000_000_000 + 1))
                waitMilliseconds = waitMilliseconds < 0 ? milliseconds : min(waitMilliseconds, milliseconds)
            }
            let ready = poll(&fds, nfds_t(fds.count), waitMilliseconds)
            if ready < 0 && errno != EINTR { break }
            if fds[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            for (index, watch) in polled.enumerated() {
                let revents = fds[index + 1].revents
                guard revents != 0, state.withLock({ $0.watches.contains(watch) }) else { continue }
                var flags: UInt32 = 0
                if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                _ = dbus_watch_handle(watch.pointer, flags)
            }
            let after = ContinuousClock.now
            let due = state.withLock { state in
                state.timers.filter { $0.deadline <= after }.map(\.timeout)
            }
            for timeout in due {
                guard dbus_timeout_get_enabled(timeout.pointer) != 0,
                    state.withLock({ $0.timers.contains { $0.timeout == timeout } })
                else { continue }
                let next = ContinuousClock.now + .milliseconds(Int(dbus_timeout_get_interval(timeout.pointer)))
                state.withLock { state in
                    for index in state.timers.indices where state.timers[index].timeout == timeout {
                        state.timers[index].deadline = next
                    }
                }
                _ = dbus_timeout_handle(timeout.pointer)
            }
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }
}
