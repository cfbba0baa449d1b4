import Dispatch
import JobdTimers

/// The Swift concurrency baseline: one task per owner looping over `Task.sleep`, the task holding
/// nothing of its owner, and cancelled in the owner's `deinit`.
final class TaskSleepContender: TimerContender {
    final class Owner {
        let task: Task<Void, Never>

        init(index: Int, deadline: SuspendingClock.Instant, recorder: FireRecorder, running: DispatchGroup) {
            running.enter()
            task = Task {
                defer { running.leave() }
                recorder.recordArmed()
                var next = deadline
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(until: next, tolerance: nil, clock: .suspending)
                    } catch {
                        return
                    }
                    recorder.recordFire(index)
                    next = .now + .seconds(3_600)
                }
            }
        }

        deinit { task.cancel() }
    }

    let name = "Task.sleep loop"
    private var owners: [Owner] = []
    /// Entered by each task, left when it ends: release is complete when every task has ended.
    private let running = DispatchGroup()

    func arm(_ recorder: FireRecorder) {
        let reference = MonotonicInstant.now(), clockNow = SuspendingClock.now
        owners.reserveCapacity(recorder.count)
        for index in 0..<recorder.count {
            let offset = recorder.deadlines[index].duration(since: reference)
            owners.append(Owner(index: index, deadline: clockNow + offset, recorder: recorder, running: running))
        }
        // A task is armed once it runs up to its first sleep, not when it is created.
        if !recorder.waitUntilAllArmed(timeout: .seconds(60)) {
            print("   warning: not every task reached its first sleep within 60 s")
        }
    }

    func releaseAll() {
        owners = []
        running.wait()
    }
}
