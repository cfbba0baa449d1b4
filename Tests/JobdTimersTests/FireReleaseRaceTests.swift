import Dispatch
import JobdTestKit
import JobdTimers
import Synchronization
import Testing

/// Fires racing releases on several threads. Run under the thread sanitizer in CI
/// (`swift test --sanitize=thread --filter FireReleaseRaceTests`).
@Suite struct FireReleaseRaceTests {
    @Test(arguments: [true, false])
    func firesRacingReleasesNeverReachAReleasedOwner(ownersInvalidateInDeinit: Bool) {
        let rounds = 20
        let ownersPerRound = 400
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        let clock = Atomic<UInt64>(1_000)

        for round in 0..<rounds {
            // The box holds the only references, so each release really is the last one.
            let box = OwnersBox((0..<ownersPerRound).map {
                CountingOwner(serial: round * ownersPerRound + $0, queue: queue, ledger: ledger,
                              invalidatesInDeinit: ownersInvalidateInDeinit)
            })
            for timer in box.timers {
                timer.schedule(at: MonotonicInstant(nanoseconds: clock.load(ordering: .relaxed)),
                               repeating: .nanoseconds(1))
            }
            #expect(ledger.deinitCount == round * ownersPerRound, "no owner may die before its release")
            // Two threads fire everything that is due, again and again; two others release owners.
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                if worker < 2 {
                    for _ in 0..<50 {
                        let now = clock.add(1, ordering: .relaxed).newValue
                        queue.fireDue(now: MonotonicInstant(nanoseconds: now))
                    }
                } else {
                    for index in stride(from: worker - 2, to: ownersPerRound, by: 2) { box.release(index) }
                }
            }
        }
        // Whatever the interleaving: every owner was deinitialized, no fire reached one whose
        // deinit had begun, and once the stragglers' fires have found their targets gone,
        // nothing is left armed.
        queue.fireDue(now: MonotonicInstant(nanoseconds: clock.add(1, ordering: .relaxed).newValue))
        #expect(ledger.deinitCount == rounds * ownersPerRound)
        #expect(ledger.firesAfterDeinitCount == 0)
        #expect(ledger.fireCount > 0, "the race must actually deliver fires to be a test of anything")
        #expect(queue.armedCount == 0)
        #expect(queue.statistics.liveTimers == 0)
        #expect(observer.invalidations.count == rounds * ownersPerRound)
        #expect(Set(observer.invalidations.map(\.timerID)).count == rounds * ownersPerRound,
                "each timer is invalidated exactly once")
        if ownersInvalidateInDeinit {
            #expect(observer.count(.targetGone) + observer.count(.ownerDeinit) == rounds * ownersPerRound)
        } else {
            #expect(observer.count(.targetGone) == rounds * ownersPerRound)
        }
    }
}
