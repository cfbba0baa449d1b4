import JobdTimers

/// The runs of one user's own jobs (or of the system's) that wait for a slot, in the order they
/// fell due and, among runs due at the same instant, the order they were asked for.
///
/// Runs are asked for as time goes on, so a run joins at the end, found from the back in a step or
/// two; the first leaves by moving a start index, so neither grows with the queue's length.
struct WaitingQueue: Sendable {
    /// Where a run stands: when it fell due, then when it was asked for.
    struct Order: Sendable, Comparable {
        var dueAt: MonotonicInstant
        var sequence: UInt64

        static func < (lhs: Order, rhs: Order) -> Bool {
            (lhs.dueAt.nanoseconds, lhs.sequence) < (rhs.dueAt.nanoseconds, rhs.sequence)
        }
    }

    private var entries: [(order: Order, request: RunRequest)] = []
    private var start = 0

    var count: Int { entries.count - start }
    var firstOrder: Order? { start < entries.count ? entries[start].order : nil }

    mutating func insert(_ request: RunRequest, sequence: UInt64) {
        let order = Order(dueAt: request.dueAt, sequence: sequence)
        var index = entries.endIndex
        while index > start, order < entries[index - 1].order { index -= 1 }
        entries.insert((order, request), at: index)
    }

    mutating func removeFirst() -> RunRequest? {
        guard start < entries.count else { return nil }
        let request = entries[start].request
        start += 1
        if start == entries.count {
            entries.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64, start * 2 > entries.count {
            entries.removeFirst(start)
            start = 0
        }
        return request
    }

    /// Removes the runs `matching` picks (a stop, a reload, jobd's stop: not a run's admission).
    mutating func removeAll(where matching: (RunRequest) -> Bool) -> [(order: Order, request: RunRequest)] {
        let live = entries[start...]
        entries = live.filter { !matching($0.request) }
        start = 0
        return live.filter { matching($0.request) }
    }
}
