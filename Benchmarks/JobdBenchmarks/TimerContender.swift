import JobdTimers

/// One way to give each of many owners its own timer, with the owner bound to it the correct way
/// for that mechanism (a weak reference back, and cancellation in the owner's `deinit`).
///
/// The benchmark arms one owner per deadline, waits for every first fire, then releases every owner.
/// After its first fire each owner re-arms an hour ahead, as a job does, so that the release meets
/// armed timers.
protocol TimerContender: AnyObject {
    var name: String { get }
    /// Creates one owner per deadline of `recorder` and arms its timer. Returns when all are armed.
    func arm(_ recorder: FireRecorder)
    /// Lets go of every owner; returns when their timers are cancelled.
    func releaseAll()
}

/// jobd's timer core: ``WeakTimer``s on one ``TimerQueue``.
final class WeakTimerContender: TimerContender {
    final class Owner: TimerTarget {
        let index: Int
        let recorder: FireRecorder
        let timer: WeakTimer

        init(index: Int, queue: TimerQueue, recorder: FireRecorder) {
            self.index = index
            self.recorder = recorder
            timer = queue.makeTimer(label: "bench", tag: UInt64(index))
            timer.bind(to: self, andScheduleAt: recorder.deadlines[index])
        }

        deinit { timer.invalidate(reason: .ownerDeinit) }

        func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
            recorder.recordFire(index)
            timer.schedule(after: .seconds(3_600))
        }
    }

    let name = "WeakTimer (jobd)"
    private let queue: TimerQueue
    private var owners: [Owner] = []

    init() throws {
        queue = try TimerQueue()
    }

    func arm(_ recorder: FireRecorder) {
        owners.reserveCapacity(recorder.count)
        for index in 0..<recorder.count {
            owners.append(Owner(index: index, queue: queue, recorder: recorder))
        }
    }

    func releaseAll() {
        owners = []
    }

    /// Timers still in the queue's heap: 0 once every owner was released.
    var armedCount: Int { queue.armedCount }
}
