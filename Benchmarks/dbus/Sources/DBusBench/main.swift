import Foundation
import Synchronization

// D-Bus round trips through a private dbus-daemon, the native layer against the libdbus layer it replaced, in
// one run (Benchmarks/dbus/run.sh starts the daemon and the python-dbusmock service):
//   call-mock  a method call to python-dbusmock's Echo (a real service process; Python answers)
//   call-peer  a method call to another connection of the same layer in this process (the layer both ways)
//   signal     a signal one connection emits until the other's handler runs
// Rounds alternate the layers (libdbus, native, libdbus, native…), so drift of the machine hits both alike.
//
//   DBusBench ADDRESS [ITERATIONS] [ROUNDS]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: DBusBench ADDRESS [ITERATIONS] [ROUNDS]\n".utf8))
    exit(64)
}
let address = arguments[1]
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
let warmup = 200

/// Signals heard and not yet awaited.
final class Arrivals: Sendable {
    private let state = Mutex<(count: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))

    func arrived() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.count += 1
            return nil
        }
        waiter?.resume()
    }

    func next() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.count > 0 {
                    state.count -= 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

enum Kind: String, CaseIterable {
    case callMock = "call-mock"
    case callPeer = "call-peer"
    case signal
}

func microseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) * 1e-12
}

func measure<E: Endpoint>(_: E.Type, count: Int) async throws -> [Kind: [Double]] {
    let caller = try E(address: address)
    let server = try E(address: address)
    defer {
        caller.close()
        server.close()
    }
    let export = try server.exportEcho(path: "/org/corelocation/Echo")
    let arrivals = Arrivals()
    let subscription = try await caller.subscribe(
        sender: server.uniqueName, interface: "org.corelocation.Bench1", member: "Tick"
    ) { arrivals.arrived() }
    let clock = ContinuousClock()
    var samples: [Kind: [Double]] = [:]
    for kind in Kind.allCases {
        var times: [Double] = []
        times.reserveCapacity(count)
        for index in 0..<(warmup + count) {
            let start = clock.now
            switch kind {
            case .callMock:
                try await caller.call(
                    destination: "org.corelocation.Bench", path: "/org/corelocation/Bench",
                    interface: "org.corelocation.Bench1", member: "Echo")
            case .callPeer:
                try await caller.call(
                    destination: server.uniqueName, path: "/org/corelocation/Echo",
                    interface: "org.corelocation.Bench1",
                    member: "Echo")
            case .signal:
                try server.emit(path: "/org/corelocation/Echo", interface: "org.corelocation.Bench1", member: "Tick")
                await arrivals.next()
            }
            if index >= warmup { times.append(microseconds(start.duration(to: clock.now))) }
        }
        samples[kind] = times
    }
    withExtendedLifetime((export, subscription)) {}
    return samples
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

var native: [Kind: [Double]] = [:]
var libdbus: [Kind: [Double]] = [:]
for round in 1...rounds {
    for (name, result) in [
        (LibdbusEndpoint.label, try await measure(LibdbusEndpoint.self, count: iterations)),
        (NativeEndpoint.label, try await measure(NativeEndpoint.self, count: iterations)),
    ] {
        for (kind, times) in result {
            if name == NativeEndpoint.label {
                native[kind, default: []] += times
            } else {
                libdbus[kind, default: []] += times
            }
            let label =
                "round \(round) \(name.padding(toLength: 8, withPad: " ", startingAt: 0))"
                + kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            let figures = String(format: "p50 %7.1f µs  p99 %7.1f µs", percentile(times, 0.5), percentile(times, 0.99))
            print(label + figures)
        }
    }
}
print("")
print("| round trip | libdbus p50 | native p50 | native / libdbus | libdbus p99 | native p99 | native / libdbus |")
print("|---|---:|---:|---:|---:|---:|---:|")
for kind in Kind.allCases {
    let (old, new) = (libdbus[kind] ?? [], native[kind] ?? [])
    let (old50, new50, old99, new99) = (
        percentile(old, 0.5), percentile(new, 0.5), percentile(old, 0.99), percentile(new, 0.99)
    )
    print(
        "| \(kind.rawValue) "
            + String(
                format: "| %.1f µs | %.1f µs | %.2f | %.1f µs | %.1f µs | %.2f |", old50, new50,
                new50 / old50, old99, new99, new99 / old99))
}
for kind in Kind.allCases {
    let (old, new) = (libdbus[kind] ?? [], native[kind] ?? [])
    print(
        "RESULT dbus \(kind.rawValue): "
            + String(
                format: "native/libdbus p50 %.2f (%.1f / %.1f µs), p99 %.2f",
                percentile(new, 0.5) / percentile(old, 0.5), percentile(new, 0.5), percentile(old, 0.5),
                percentile(new, 0.99) / percentile(old, 0.99)))
}
print("\(iterations) timed round trips of each kind per layer and round (after \(warmup) untimed), \(rounds) rounds")
