import Logging
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What one connection writes, from any thread, in order (decision 0042): straight into the socket from the sending
/// thread (`DirectSocket`: for a fix, the source's reader, without waking the event loop) while nothing of the
/// connection waits; what the socket does not take, and everything after it until that has drained, through the
/// loop (`LoopWriter`, then the channel). Past `maximumBufferedBytes` of unread output the connection is cut off, so
/// a client that stops reading costs bounded memory and holds up no one. The daemon's protocol connections
/// (`Peer`) and the gpsd front door's (`GPSDConnection`) write through one.
final class ConnectionOutput: Sendable {
    private struct State {
        /// Bytes sent and not yet handed to the channel (waiting in the loop writer's queue).
        var queuedBytes = 0
        /// Our duplicate of the connection's socket (`DirectSocket`), -1 when there is none.
        var socket: Int32 = -1
        /// Frames go through the loop until what the socket did not take has drained.
        var throughLoop = false
        var isClosed = false
    }

    let channel: any Channel
    private let writer: LoopWriter
    private let maximumBufferedBytes: Int
    /// Told, once, why the connection is being cut off (it is closed right after).
    private let cutOffNotice: @Sendable (String) -> Void
    private let state: Mutex<State>

    /// `socket`: our duplicate of the channel's descriptor (`DirectSocket.duplicate`), owned from now on; -1 for none,
    /// and then everything goes through the loop.
    init(
        channel: any Channel, writer: LoopWriter, socket: Int32, maximumBufferedBytes: Int,
        cutOffNotice: @escaping @Sendable (String) -> Void
    ) {
        self.channel = channel
        self.writer = writer
        self.maximumBufferedBytes = maximumBufferedBytes
        self.cutOffNotice = cutOffNotice
        state = Mutex(State(socket: socket))
    }

    deinit {
        // A connection dropped before its channel said it was inactive: the duplicate is still ours to close.
        state.withLock { state in
            if state.socket >= 0 { Glibc.close(state.socket) }
        }
    }

    /// Takes our duplicate of the channel's socket, found after the connection began (`DirectSocket.duplicate`): from
    /// now on frames go straight into it, once what went through the loop before has drained.
    func adopt(socket: Int32) {
        let unused = state.withLock { state -> Bool in
            guard !state.isClosed, state.socket < 0 else { return true }
            state.socket = socket
            return false
        }
        if unused { Glibc.close(socket) }
    }

    /// Writes a frame (one buffer, shared by every connection it goes to: never copied) from any thread.
    func send(_ frame: ByteBuffer) {
        let overLimit = state.withLock { state -> Bool in
            if state.isClosed { return false }
            var rest = frame
            if state.socket >= 0, !state.throughLoop {
                switch DirectSocket.send(state.socket, frame) {
                case .sent, .broken: return false
                case let .partial(written): rest.moveReaderIndex(forwardBy: written)
                }
            }
            // Until this has drained, nothing may overtake it: not a later frame, not one written by a socket
            // adopted meanwhile (`adopt`).
            state.throughLoop = true
            state.queuedBytes += rest.readableBytes
            if state.queuedBytes > maximumBufferedBytes { return true }
            // Queued under the lock: a frame sent later, from any thread, is written after it.
            writer.enqueue(rest, to: self)
            return false
        }
        if overLimit { cutOff() }
    }

    /// On the loop (`LoopWriter`): hands a queued frame to the channel. Unread output is what the channel still holds
    /// (not yet taken by the kernel) plus what waits in the writer's queue; past the limit the client is cut off
    /// (issue 20's bound, as the write promises counted it).
    func writeOnLoop(_ frame: ByteBuffer) {
        let count = frame.readableBytes
        // A frame sent before the connection was closed is still written (a fatal error, then the close); a closed
        // channel fails the write harmlessly.
        let queued = state.withLock { state -> Int in
            state.queuedBytes -= count
            return state.queuedBytes
        }
        let unsent = (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        if unsent + queued + count > maximumBufferedBytes, channel.isActive {
            cutOff()
            return
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [self] _ in drained() }
        channel.writeAndFlush(frame, promise: promise)
    }

    /// On the loop, after a write through the channel: once nothing of this connection waits (in the writer's queue
    /// or in the channel), frames go straight to the socket again. Nothing can enter the channel meanwhile: only the
    /// loop hands frames to it, and this runs on the loop.
    private func drained() {
        let unsent = (try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 1
        guard unsent == 0 else { return }
        state.withLock { state in
            if state.queuedBytes == 0 { state.throughLoop = false }
        }
    }

    private func cutOff() {
        cutOffNotice("more than \(maximumBufferedBytes) bytes unread")
        close()
    }

    /// Nothing more is written; the channel closes.
    func close() {
        state.withLock { $0.isClosed = true }
        channel.close(promise: nil)
    }

    /// The channel went inactive (on the loop): nothing is written any more, and our duplicate of the socket is
    /// closed, under the lock no direct write runs without.
    func closed() {
        state.withLock { state in
            state.isClosed = true
            if state.socket >= 0 {
                Glibc.close(state.socket)
                state.socket = -1
            }
        }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }
}
