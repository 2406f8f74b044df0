/// A multiset of numbers that knows its least member: insert and remove in O(log n) amortized, the minimum in O(1).
///
/// A binary heap with lazy removal: a removed value is counted in `removed` and leaves the heap when it reaches the
/// top, so the top is always a member. The heap is rebuilt (O(n)) once stale entries outnumber members, which
/// keeps its size within twice the members' and the cost per operation amortized O(log n).
struct MinMultiset: Sendable {
    private var heap: [Double] = []
    private var removed: [Double: Int] = [:]
    private var staleCount = 0

    /// The least member, nil when empty.
    var min: Double? { heap.first }

    /// How many members (not counting removed values still held).
    var count: Int { heap.count - staleCount }

    /// Adds `value`. NaN has no place in an order and is not held (nor is its removal counted).
    mutating func insert(_ value: Double) {
        guard !value.isNaN else { return }
        heap.append(value)
        siftUp(heap.count - 1)
    }

    /// Removes one copy of `value`, which must be a member.
    mutating func remove(_ value: Double) {
        guard !value.isNaN else { return }
        removed[value, default: 0] += 1
        staleCount += 1
        dropStaleTop()
        if staleCount > 16, staleCount * 2 > heap.count { compact() }
    }

    private mutating func dropStaleTop() {
        while let top = heap.first, let stale = removed[top] {
            if stale == 1 { removed[top] = nil } else { removed[top] = stale - 1 }
            staleCount -= 1
            popTop()
        }
    }

    private mutating func compact() {
        var members: [Double] = []
        members.reserveCapacity(heap.count - staleCount)
        for value in heap {
            if let stale = removed[value] {
                if stale == 1 { removed[value] = nil } else { removed[value] = stale - 1 }
            } else {
                members.append(value)
            }
        }
        heap = members
        removed = [:]
        staleCount = 0
        // Floyd's heap construction: O(n).
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var least = left
            if left + 1 < heap.count, heap[left + 1] < heap[left] { least = left + 1 }
            guard heap[least] < heap[parent] else { return }
            heap.swapAt(least, parent)
            parent = least
        }
    }
}
