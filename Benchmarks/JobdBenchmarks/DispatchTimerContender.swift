import Dispatch
import JobdTimers

/// The baseline most Swift code on Linux would use: one `DispatchSourceTimer` per owner, all on one
/// serial queue, the handler capturing the owner weakly, the source cancelled in the owner's `deinit`.
final class DispatchTimerContender: TimerContender {
    // A dispatch source is thread-safe, but Dispatch does not mark it Sendable.
    final class Owner: @unchecked Sendable {
        let index: Int
        let recorder: FireRecorder
        let source: any DispatchSourceTimer

        init(index: Int, deadline: DispatchTime, queue: DispatchQueue, recorder: FireRecorder) {
            self.index = index
            self.recorder = recorder
            source = DispatchSource.makeTimerSource(queue: queue)
            source.setEventHandler { [weak self] in self?.fired() }
            source.schedule(deadline: deadline, leeway: .nanoseconds(0))
            source.activate()
        }

        deinit { source.cancel() }

        func fired() {
            recorder.recordFire(index)
            source.schedule(deadline: .now() + .seconds(3_600), leeway: .nanoseconds(0))
        }
    }

    let name = "DispatchSourceTimer"
    private let queue = DispatchQueue(label: "jobd-benchmarks.dispatch-timers")
    private var owners: [Owner] = []

    func arm(_ recorder: FireRecorder) {
        // Dispatch's own clock, lined up with CLOCK_MONOTONIC once, so deadlines are the same instants.
        let reference = MonotonicInstant.now(), dispatchNow = DispatchTime.now()
        owners.reserveCapacity(recorder.count)
        for index in 0..<recorder.count {
            let offset = recorder.deadlines[index].nanoseconds - reference.nanoseconds
            let deadline = DispatchTime(uptimeNanoseconds: dispatchNow.uptimeNanoseconds + offset)
            owners.append(Owner(index: index, deadline: deadline, queue: queue, recorder: recorder))
        }
    }

    func releaseAll() {
        owners = []
        // Cancellation completes on the queue: wait for it to drain.
        queue.sync {}
    }
}
