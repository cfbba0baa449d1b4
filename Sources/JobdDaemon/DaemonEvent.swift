import JobdRunner
import JobdScheduler
import UnixSignals

/// Everything the main loop reacts to, in the order it arrived: fires from the timing thread, runs
/// that ended, and signals.
enum DaemonEvent: Sendable {
    case due(DueJob)
    case runFinished(RunOutcome)
    case signal(UnixSignal)
}
