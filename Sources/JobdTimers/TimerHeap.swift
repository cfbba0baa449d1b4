/// A binary min-heap of armed timers, ordered by deadline and then by creation.
///
/// Each timer knows its own index, so a timer is removed or moved in O(log n): invalidating one of
/// 100,000 timers must not cost a scan, and a cancelled timer must leave the heap at once rather
/// than linger until its deadline (swift-collections' `Heap` offers neither, hence this one).
/// Not thread-safe: ``TimerQueue`` guards it with its lock, and so guards each timer's `heapIndex`.
struct TimerHeap {
    private(set) var storage: [WeakTimer] = []

    var count: Int { storage.count }
    var first: WeakTimer? { storage.first }

    mutating func reserveCapacity(_ capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    /// Inserts `timer`, or moves it if its deadline changed while it was in the heap.
    mutating func upsert(_ timer: WeakTimer) {
        if timer.heapIndex >= 0 {
            let index = Int(timer.heapIndex)
            siftUp(from: index)
            siftDown(from: Int(timer.heapIndex))
            return
        }
        timer.heapIndex = Int32(storage.count)
        storage.append(timer)
        siftUp(from: storage.count - 1)
    }

    /// Removes `timer` if it is in the heap.
    mutating func remove(_ timer: WeakTimer) {
        guard timer.heapIndex >= 0 else { return }
        let index = Int(timer.heapIndex)
        timer.heapIndex = -1
        let last = storage.removeLast()
        guard index < storage.count else { return }
        storage[index] = last
        last.heapIndex = Int32(index)
        siftUp(from: index)
        siftDown(from: Int(last.heapIndex))
    }

    /// Removes and returns the earliest timer.
    mutating func popFirst() -> WeakTimer? {
        guard let first = storage.first else { return nil }
        remove(first)
        return first
    }

    private static func precedes(_ a: WeakTimer, _ b: WeakTimer) -> Bool {
        if a.deadlineNanoseconds != b.deadlineNanoseconds {
            return a.deadlineNanoseconds < b.deadlineNanoseconds
        }
        return a.id < b.id
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        let timer = storage[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(timer, storage[parent]) else { break }
            storage[child] = storage[parent]
            storage[child].heapIndex = Int32(child)
            child = parent
        }
        storage[child] = timer
        timer.heapIndex = Int32(child)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let timer = storage[parent]
        let count = storage.count
        while true {
            var best = 2 * parent + 1
            guard best < count else { break }
            if best + 1 < count, Self.precedes(storage[best + 1], storage[best]) { best += 1 }
            guard Self.precedes(storage[best], timer) else { break }
            storage[parent] = storage[best]
            storage[parent].heapIndex = Int32(parent)
            parent = best
        }
        storage[parent] = timer
        timer.heapIndex = Int32(parent)
    }
}
