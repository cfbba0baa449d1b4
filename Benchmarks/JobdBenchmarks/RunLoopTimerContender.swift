import Foundation
import JobdTimers

/// The Foundation baseline: one repeating `Timer` per owner on a run loop that a thread of its own
/// runs, the block capturing the owner weakly, the timer invalidated in the owner's `deinit`.
final class RunLoopTimerContender: TimerContender {
    final class Owner: Sendable {
        let index: Int
        let recorder: FireRecorder
        nonisolated(unsafe) var timer: Timer?

        init(index: Int, fireDate: Date, runLoop: RunLoopThread, recorder: FireRecorder) {
            self.index = index
            self.recorder = recorder
            let timer = Timer(fire: fireDate, interval: 3_600, repeats: true) { [weak self] _ in
                self?.recorder.recordFire(index)
            }
            timer.tolerance = 0
            self.timer = timer
            runLoop.add(timer)
        }

        deinit { timer?.invalidate() }
    }

    /// A thread that runs a run loop for good; timers are added to it from other threads.
    final class RunLoopThread: @unchecked Sendable {
        private var runLoop: RunLoop?
        private let started = NSCondition()

        init() {
            Thread.detachNewThread { [self] in
                // A timer in the distant future keeps the loop from returning when it has no other source.
                let keepAlive = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
                RunLoop.current.add(keepAlive, forMode: .default)
                started.lock()
                runLoop = RunLoop.current
                started.broadcast()
                started.unlock()
                while true { _ = RunLoop.current.run(mode: .default, before: .distantFuture) }
            }
            started.lock()
            while runLoop == nil { started.wait() }
            started.unlock()
        }

        func add(_ timer: Timer) {
            runLoop?.add(timer, forMode: .default)
        }
    }

    let name = "Foundation Timer on a RunLoop"
    private let thread = RunLoopThread()
    private var owners: [Owner] = []

    func arm(_ recorder: FireRecorder) {
        let reference = MonotonicInstant.now(), dateNow = Date()
        owners.reserveCapacity(recorder.count)
        for index in 0..<recorder.count {
            let offset = recorder.deadlines[index].duration(since: reference)
            let fireDate = dateNow.addingTimeInterval(Double(offset.nanosecondsSaturated) / 1e9)
            owners.append(Owner(index: index, fireDate: fireDate, runLoop: thread, recorder: recorder))
        }
    }

    func releaseAll() {
        owners = []
    }
}
