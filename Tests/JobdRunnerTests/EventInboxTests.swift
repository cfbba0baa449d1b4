import JobdLocks
import Testing

/// The main loop's inbox (issue 39, item 4): events from any thread, taken in order by one task;
/// after a burst has been taken it holds no room, where an `AsyncStream` kept its largest burst's
/// buffer for good.
@Suite struct EventInboxTests {
    @Test func eventsAreTakenInTheOrderTheyWerePostedAndABurstLeavesNoRoom() async {
        let inbox = EventInbox<Int>()
        for event in 0..<1_000 { inbox.yield(event) }
        #expect(inbox.capacity >= 1_000, "the burst waits in the inbox")
        var taken: [Int] = []
        var iterator = inbox.makeAsyncIterator()
        while taken.count < 1_000, let event = await iterator.next() { taken.append(event) }
        #expect(taken == Array(0..<1_000))
        #expect(inbox.capacity == 0, "once taken, the burst's room is given back")
    }

    /// A taker that waits is woken by the next event, from another thread; finishing ends the
    /// loop once what was posted is taken.
    @Test func aWaitingTakerGetsTheNextEventAndFinishEndsTheLoop() async {
        let inbox = EventInbox<String>()
        async let taken: [String] = {
            var all: [String] = []
            for await event in inbox { all.append(event) }
            return all
        }()
        let poster = Task.detached {
            for event in ["a", "b", "c"] { inbox.yield(event) }
            inbox.finish()
            inbox.yield("after the end")
        }
        await poster.value
        #expect(await taken == ["a", "b", "c"])
    }

    /// Events that keep coming as fast as the loop takes them, a hundred always waiting, so that the
    /// inbox is never drained: what was taken is dropped as it goes, and the room stays near what
    /// waits, not all that ever came.
    @Test func anInboxNeverDrainedKeepsOnlyRoomForWhatWaits() async {
        let inbox = EventInbox<Int>()
        for event in 0..<100 { inbox.yield(event) }
        var iterator = inbox.makeAsyncIterator()
        for taken in 0..<10_000 {
            inbox.yield(100 + taken)
            #expect(await iterator.next() == taken)
        }
        #expect(inbox.capacity < 1_000, "room for the 100 waiting, not the 10,100 posted: \(inbox.capacity)")
        for expected in 10_000..<10_100 { #expect(await iterator.next() == expected) }
    }

    /// An event posted ahead (the watchdog's ping) is taken next, before a burst that waits, and
    /// the burst then in its order; a waiting taker gets it as any other.
    @Test func anEventPostedAheadIsTakenBeforeTheBurstThatWaits() async {
        let inbox = EventInbox<Int>()
        for event in 0..<10_000 { inbox.yield(event) }
        var iterator = inbox.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        inbox.yieldAhead(-1)
        inbox.yieldAhead(-2)
        #expect(await iterator.next() == -1)
        #expect(await iterator.next() == -2)
        var rest: [Int] = []
        while rest.count < 9_999, let event = await iterator.next() { rest.append(event) }
        #expect(rest == Array(1..<10_000))
        let waiting = Task { await inbox.next() }
        await Task.yield()
        inbox.yieldAhead(-3)
        #expect(await waiting.value == -3)
        inbox.finish()
        inbox.yieldAhead(-4)
        #expect(await inbox.next() == nil, "nothing is posted after the end")
    }

    @Test func aCancelledTakerStopsWaiting() async {
        let inbox = EventInbox<Int>()
        let taker = Task { await inbox.next() }
        taker.cancel()
        #expect(await taker.value == nil)
    }
}
