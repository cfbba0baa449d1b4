/// A binary min-heap of elapses, each with the index of the job simulation it came from, earliest
/// first (then by job name, then index): ``SchedulePlan/plan(_:present:from:until:limit:maximumSkipped:)``
/// merges the jobs' simulations with it, taking one elapse at a time from the job that falls due first.
struct ElapseHeap {
    private var items: [(elapse: SchedulePlan.Elapse, index: Int)] = []

    private func less(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (items[a], items[b])
        return (x.elapse.earliest, x.elapse.job, x.index) < (y.elapse.earliest, y.elapse.job, y.index)
    }

    mutating func push(_ elapse: SchedulePlan.Elapse, _ index: Int) {
        items.append((elapse, index))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (SchedulePlan.Elapse, Int)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, less(left, smallest) { smallest = left }
            if right < items.count, less(right, smallest) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return (top.elapse, top.index)
    }
}
