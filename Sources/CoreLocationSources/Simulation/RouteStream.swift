import Foundation

/// The points of a `GPXRouteFile`, read by a thread of their own a little ahead of the replay: at
/// most `capacity` points are held, and the reader waits while the buffer is full. So a replay's
/// memory does not depend on the file's length. Releasing the stream (or `cancel()`) stops the reader.
///
/// If the file changed since it was scanned and ends early, `next()` returns nil at its end; a
/// parse error on this second pass also ends the stream (the scan reported it, if it was there then).
public final class RouteStream: Sendable {
    /// Points read ahead at most.
    public static let capacity = 4_096

    public let file: GPXRouteFile
    private let buffer: Buffer

    init(file: GPXRouteFile) {
        self.file = file
        self.buffer = Buffer()
    }

    deinit { buffer.cancel() }

    /// The next point in file order; nil at the end.
    public func next() -> RoutePoint? { buffer.next(startingReaderOf: file) }

    /// Stops the reader.
    public func cancel() { buffer.cancel() }

    /// What the reader thread and the replay share (the thread holds this, not the stream, so that
    /// releasing the stream stops it).
    private final class Buffer: @unchecked Sendable {  // safe: every var is guarded by `condition`
        // @unchecked Sendable is safe: every stored `var` is read and written only with `condition` locked.
        private let condition = NSCondition()
        private var points: [RoutePoint] = []
        private var head = 0
        private var isEnded = false
        private var isCancelled = false
        private var isStarted = false
        /// Who waits: the replay for a point, the reader for room (so that each side signals only
        /// when the other is asleep, not at every point).
        private var replayWaits = false
        private var readerWaits = false

        private struct Cancelled: Error {}

        func next(startingReaderOf file: GPXRouteFile) -> RoutePoint? {
            condition.lock()
            defer { condition.unlock() }
            if !isStarted {
                isStarted = true
                NamedThread.start("cl-gpx-stream") { [self] in read(file) }
            }
            while head == points.count, !isEnded {
                replayWaits = true
                condition.wait()
            }
            replayWaits = false
            guard head < points.count else { return nil }
            let point = points[head]
            head += 1
            if head >= RouteStream.capacity / 2 {
                points.removeFirst(head)
                head = 0
            }
            // The reader sleeps while the buffer is full; wake it once half is free.
            if readerWaits, points.count - head <= RouteStream.capacity / 2 { condition.broadcast() }
            return point
        }

        func cancel() {
            condition.lock()
            isCancelled = true
            condition.broadcast()
            condition.unlock()
        }

        /// The reader thread: parses the file, handing points over as the buffer has room.
        private func read(_ file: GPXRouteFile) {
            do {
                try GPXParser().forEachPoint(in: try FileProblem.openStream(file.path)) { point in
                    try append(point)
                }
            } catch {
                // Cancelled, or the file changed since the scan: the stream ends here.
            }
            condition.lock()
            isEnded = true
            condition.broadcast()
            condition.unlock()
        }

        private func append(_ point: RoutePoint) throws {
            condition.lock()
            defer { condition.unlock() }
            while points.count - head >= RouteStream.capacity, !isCancelled {
                readerWaits = true
                condition.wait()
            }
            readerWaits = false
            if isCancelled { throw Cancelled() }
            points.append(point)
            if replayWaits { condition.broadcast() }
        }
    }
}
