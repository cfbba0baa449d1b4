/// A queue of events that any thread posts to and one task takes from, in order: the main loop's
/// inbox. In place of `AsyncStream` because a stream's buffer keeps the room of its largest burst
/// for good (1,000 runs falling due at once left 0.6 MiB in jobd after they ended, issue 39); this
/// one starts over empty once a burst has been taken.
package final class EventInbox<Element: Sendable>: AsyncSequence, Sendable {
    /// Room a drained inbox keeps: what a quiet jobd posts between two turns of its loop.
    package static var keptCapacity: Int { 64 }

    private struct State {
        var events: [Element] = []
        /// Events posted ahead of the others (``yieldAhead(_:)``), taken first, in their order.
        var ahead: [Element] = []
        /// The next event to take: taking moves it on, and the array is emptied once it is all taken.
        var head = 0
        var taker: CheckedContinuation<Element?, Never>?
        var finished = false
    }

    private let state = LockedBox(State())

    package init() {}

    /// Posts `event`, unless the inbox is finished.
    package func yield(_ event: Element) {
        post(event, ahead: false)
    }

    /// Posts `event` ahead of every event waiting (after those posted ahead before it), unless the
    /// inbox is finished: for what must not wait behind a burst, such as the watchdog's ping, which
    /// then proves that the loop still takes events rather than that it has taken them all.
    package func yieldAhead(_ event: Element) {
        post(event, ahead: true)
    }

    private func post(_ event: Element, ahead: Bool) {
        let taker: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if let taker = state.taker {
                state.taker = nil
                return taker
            }
            if ahead { state.ahead.append(event) } else { state.events.append(event) }
            return nil
        }
        taker?.resume(returning: event)
    }

    /// Ends the inbox: what was posted is still taken, then the loop over it ends.
    package func finish() {
        let taker = state.withLock { state in
            state.finished = true
            defer { state.taker = nil }
            return state.taker
        }
        taker?.resume(returning: nil)
    }

    /// The room the inbox holds now, for the tests of what it gives back.
    package var capacity: Int { state.withLock { $0.events.capacity } }

    /// The next event, waiting for one if none is posted; `nil` once the inbox is finished and
    /// drained, or the taking task is cancelled.
    package func next() async -> Element? {
        if let event = state.withLock({ Self.take(from: &$0) }) { return event }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (taker: CheckedContinuation<Element?, Never>) in
                let ready: Element?? = state.withLock { state in
                    if let event = Self.take(from: &state) { return .some(event) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.taker = taker
                    return nil
                }
                if let ready { taker.resume(returning: ready) }
            }
        } onCancel: {
            let taker = state.withLock { state in
                defer { state.taker = nil }
                return state.taker
            }
            taker?.resume(returning: nil)
        }
    }

    private static func take(from state: inout State) -> Element? {
        if !state.ahead.isEmpty { return state.ahead.removeFirst() }
        guard state.head < state.events.count else { return nil }
        let event = state.events[state.head]
        state.head += 1
        if state.head == state.events.count {
            state.head = 0
            if state.events.capacity > keptCapacity {
                state.events = []
            } else {
                state.events.removeAll(keepingCapacity: true)
            }
        } else if state.head >= keptCapacity, state.head * 2 >= state.events.count {
            // Never drained while events keep coming: drop what is taken, at most as often as the
            // array doubles, so that taking stays O(1) on average.
            state.events.removeFirst(state.head)
            state.head = 0
        }
        return event
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: EventInbox

        package mutating func next() async -> Element? { await inbox.next() }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: self) }
}
