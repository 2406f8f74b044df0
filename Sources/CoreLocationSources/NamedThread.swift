import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts the sources' reader threads under a name the operating system shows (`top -H`, `ps -L`, `perf`,
/// `/proc/PID/task/*/comm`). Foundation's `Thread.name` never reaches the kernel on Linux (a thread's comm stays
/// its creator's, before or after `start()`), so in locationd every reader appeared as the event-loop thread that
/// started it. The kernel keeps 15 bytes of a name: these are short, and longer ones are cut.
enum NamedThread {
    static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            #if canImport(Glibc)
                // What pthread_setname_np does (Glibc's module map hides it without _GNU_SOURCE): the thread writes
                // its own comm. Nothing happens where /proc is not mounted; the name is only for people.
                let descriptor = open("/proc/thread-self/comm", O_WRONLY)
                if descriptor >= 0 {
                    let bytes = Array(name.utf8.prefix(15))
                    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                    _ = close(descriptor)
                }
            #endif
            body()
        }
        thread.name = name
        thread.start()
    }
}
