import CoreLocationGPSDTestSupport
import Foundation
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// What locationd reads of a process from /proc, against real processes.
@Suite struct PeerIdentityTests {
    /// A running process's arguments; a zombie's (exited, not yet reaped) are unknown, not empty: a launch
    /// target recorded from them started a bare `locationctl` instead of the reporter that had been killed.
    @Test func aZombiesArgumentsAreUnknownNotEmpty() async throws {
        var pid: pid_t = 0
        let argv: [String] = ["/bin/sh", "-c", "read line", "sh-name", "second"]
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pipeEnds: [Int32] = [0, 0]
        // Close-on-exec from the start (a socket pair: Glibc's pipe2 is not visible to Swift): a process
        // another test spawns meanwhile must not inherit the writing end, or this child never reads the
        // end of its input (the CI met it). The dup2 below clears the flag on the child's standard input.
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        // The child must not hold the write end itself, or it never reads the end of its input.
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        #expect(posix_spawn(&pid, "/bin/sh", &actions, nil, &cArguments, environ) == 0)
        close(pipeEnds[0])
        // Running (blocked reading its standard input): its arguments as given. Polled: on a loaded
        // machine the CI once read the child before its command line was there.
        #expect(
            await Polling.until(timeout: 10, every: 0.01) { PeerIdentity.arguments(of: pid) == Array(argv.dropFirst()) },
            "\(String(describing: PeerIdentity.arguments(of: pid)))")
        // Exited and not reaped (nobody waits for it yet): a zombie.
        close(pipeEnds[1])
        let isZombie = await Polling.until(timeout: 10, every: 0.01) {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
        #expect(isZombie)
        #expect(PeerIdentity.arguments(of: pid) == nil)
        if !isZombie { kill(pid, SIGKILL) }  // never wait on a child that did not exit
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        // Reaped: gone.
        #expect(PeerIdentity.arguments(of: pid) == nil)
    }
}
