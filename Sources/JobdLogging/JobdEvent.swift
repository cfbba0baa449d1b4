package import Logging

/// The kinds of event jobd logs. Each is one `JOBD_EVENT=` value in the journal, with its own
/// `MESSAGE_ID` so that `journalctl -x` can explain it (see `systemd/jobd.catalog`).
///
/// This vocabulary is a contract: tools and tests query the journal by it. Add kinds; never rename one.
package enum JobdEvent: String, Sendable, CaseIterable {
    case daemonStart = "daemon.start"
    case daemonReady = "daemon.ready"
    case daemonStop = "daemon.stop"
    case reloadStart = "reload.start"
    case reloadDone = "reload.done"
    case reloadFailed = "reload.failed"
    case configError = "config.error"
    case generationLoad = "generation.load"
    case generationRetire = "generation.retire"
    case ownerInit = "owner.init"
    case ownerDeinit = "owner.deinit"
    case ownerRetain = "owner.retain"
    case ownerLeak = "owner.leak"
    case ownerLateDeinit = "owner.late-deinit"
    case timerSchedule = "timer.schedule"
    case timerFire = "timer.fire"
    case timerInvalidate = "timer.invalidate"
    case runStart = "run.start"
    case runExit = "run.exit"
    case runSkip = "run.skip"
    case runTimeout = "run.timeout"
    case runOutput = "run.output"
    case daemonExit = "daemon.exit"
    case runStop = "run.stop"
    case runKill = "run.kill"
    case runWait = "run.wait"
    case runRetry = "run.retry"
    case jobDisable = "job.disable"
    case jobEnable = "job.enable"
    case runLeftovers = "run.leftovers"
    /// Many owners created at once (start-up, a reload that replaced many jobs), in one entry per
    /// piece: `JOBD_OWNERS` (id ranges) and `JOBD_JOBS` (their jobs, in the same order).
    case ownersInit = "owners.init"
    /// Many owners released at once (shutdown, such a reload): `JOBD_OWNERS`.
    case ownersDeinit = "owners.deinit"
    /// Many jobs' timers invalidated at once, for one `JOBD_REASON`: their owners in `JOBD_OWNERS`.
    case timersInvalidate = "timers.invalidate"
    /// Entries jobd's log queue dropped while the journal (or stderr) took none: `JOBD_DROPPED_COUNT`
    /// in all, `JOBD_DROPPED_EVENTS` by event.
    case logDropped = "log.dropped"
    /// A run's output was mailed (`MailTo=`), or could not be.
    case runMail = "run.mail"
    /// A run an earlier jobd had in flight and never recorded the end of (it was killed or
    /// crashed): recorded by the next jobd at its start, with `JOBD_RESULT=abandoned`.
    case runAbandoned = "run.abandoned"
    /// Lines of a user's run's output that went over the user's journal budget and were not
    /// logged: `JOBD_DROPPED_COUNT`.
    case runOutputDropped = "run.output-dropped"
    /// The wall clock changed under jobd: the machine was suspended (`JOBD_SUSPENDED_USEC`) or
    /// the clock was set (`JOBD_CLOCK_JUMP_USEC`, negative when set back); calendar jobs are re-armed.
    case clockChange = "clock.change"
    /// A job with `ExpectSuccessWithinSec=` has not succeeded within it: its alarm (a warning),
    /// once until a success clears it. `JOBD_DEADLINE_USEC`, and `JOBD_LAST_SUCCESS_USEC` if it ever succeeded.
    case jobOverdue = "job.overdue"
    /// The overdue job succeeded again: its alarm is cleared, and armed again from this success.
    case jobOverdueCleared = "job.overdue-cleared"
    /// crontab(1) installed a user's crontab (Debian's cron logs `(alice) REPLACE (alice)`):
    /// `JOBD_CALLER_UID`, `JOBD_CRONTAB_UID`, `JOBD_CRONTAB_USER`; never the crontab's lines.
    case crontabReplace = "crontab.replace"
    /// crontab(1) removed a user's crontab (`DELETE`): the same fields.
    case crontabDelete = "crontab.delete"
    /// crontab(1) listed a user's crontab (`LIST`): the same fields.
    case crontabList = "crontab.list"
    /// A run in flight left running for the next jobd at a restart (issue 36): its process and
    /// pipes live on; `run.adopt` of the next jobd follows with the same `JOBD_RUN_ID`.
    case runHandover = "run.handover"
    /// A run an earlier jobd handed over (or left in flight when it was killed), followed by this one
    /// to its end: its `run.exit` follows.
    case runAdopt = "run.adopt"
    /// jobd left its runs in flight to the next jobd and exited: systemd restarts it (`JOBD_RUN_COUNT`).
    case daemonHandover = "jobd.handover"
    /// A user's `run.skip`, `run.wait` and `run.retry` entries went over her journal budget (the
    /// one her output spends): the first one dropped says so; the next one logged says how many
    /// were not (`JOBD_DROPPED_COUNT`), with `JOBD_JOB_UID`.
    case runEntriesDropped = "run.entries-dropped"

    /// The 128-bit `MESSAGE_ID` of this kind, as 32 lowercase hex digits: written out, never derived
    /// from the order of the cases, so that reordering them cannot change an id. A new kind takes
    /// the next unused id; an id is never reused. The catalog entries in `systemd/jobd.catalog` use
    /// the same ids, and a test checks that no two kinds share one.
    package var messageID: String {
        switch self {
        case .daemonStart: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1001"
        case .daemonReady: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1002"
        case .daemonStop: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1003"
        case .reloadStart: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1004"
        case .reloadDone: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1005"
        case .reloadFailed: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1006"
        case .configError: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1007"
        case .generationLoad: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1008"
        case .generationRetire: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1009"
        case .ownerInit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f100a"
        case .ownerDeinit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f100b"
        case .ownerRetain: "6a0bd7e51c2f4d1e9b3a7c5d8e2f100c"
        case .ownerLeak: "6a0bd7e51c2f4d1e9b3a7c5d8e2f100d"
        case .ownerLateDeinit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f100e"
        case .timerSchedule: "6a0bd7e51c2f4d1e9b3a7c5d8e2f100f"
        case .timerFire: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1010"
        case .timerInvalidate: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1011"
        case .runStart: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1012"
        case .runExit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1013"
        case .runSkip: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1014"
        case .runTimeout: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1015"
        case .runOutput: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1016"
        case .daemonExit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1017"
        case .runStop: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1018"
        case .runKill: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1019"
        case .runWait: "6a0bd7e51c2f4d1e9b3a7c5d8e2f101a"
        case .runRetry: "6a0bd7e51c2f4d1e9b3a7c5d8e2f101b"
        case .jobDisable: "6a0bd7e51c2f4d1e9b3a7c5d8e2f101c"
        case .jobEnable: "6a0bd7e51c2f4d1e9b3a7c5d8e2f101d"
        case .runLeftovers: "6a0bd7e51c2f4d1e9b3a7c5d8e2f101e"
        case .ownersInit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1070"
        case .ownersDeinit: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1071"
        case .timersInvalidate: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1072"
        case .logDropped: "6a0bd7e51c2f4d1e9b3a7c5d8e2f101f"
        case .runMail: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1020"
        case .runAbandoned: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1021"
        case .runOutputDropped: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1022"
        case .clockChange: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1023"
        case .jobOverdue: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1030"
        case .jobOverdueCleared: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1031"
        case .crontabReplace: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1080"
        case .crontabDelete: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1081"
        case .crontabList: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1082"
        case .runHandover: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1083"
        case .runAdopt: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1084"
        case .daemonHandover: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1085"
        case .runEntriesDropped: "6a0bd7e51c2f4d1e9b3a7c5d8e2f1088"
        }
    }
}

/// Journal field names used on jobd's events. Each is valid for journald: `[A-Z0-9_]`, not starting
/// with `_` or a digit, at most 64 characters.
package enum JobdField {
    package static let event = "JOBD_EVENT"
    package static let job = "JOB"
    /// On `run.output`, the job's `SyslogIdentifier=`: sent as the entry's `SYSLOG_IDENTIFIER`
    /// in place of the job's name, never as a field of its own.
    package static let syslogIdentifier = "SYSLOG_IDENTIFIER"
    package static let instance = "JOBD_INSTANCE"
    package static let generation = "JOBD_GENERATION"
    package static let owner = "JOBD_OWNER"
    /// On compact entries (`owner.retain`, `owners.init`, `owners.deinit`, `timers.invalidate`): the
    /// owners the entry names, as id ranges (``OwnerIDRanges``).
    package static let owners = "JOBD_OWNERS"
    /// On compact entries: how many owners `JOBD_OWNERS` names.
    package static let ownerCount = "JOBD_OWNER_COUNT"
    /// On `owners.init`: the job of each owner `JOBD_OWNERS` names, in ascending order of owner id,
    /// separated by spaces (job names have none).
    package static let jobs = "JOBD_JOBS"
    package static let timer = "JOBD_TIMER"
    package static let run = "JOBD_RUN"
    /// Every entry of a run: 128 random bits in hex, unique across restarts and machines (as systemd's `INVOCATION_ID`).
    package static let runID = "JOBD_RUN_ID"
    /// On `run.exit`: how the run ended, in systemd's words (`success`, `exit-code`, `timeout`, …).
    package static let result = "JOBD_RESULT"
    /// On `run.retry`: which retry this is, and how many the job allows.
    package static let attempt = "JOBD_ATTEMPT"
    /// On runs another job's outcome started: that job, and its run's `JOBD_RUN_ID`.
    package static let triggeredBy = "JOBD_TRIGGERED_BY"
    package static let triggeredByRunID = "JOBD_TRIGGERED_BY_RUN_ID"
    /// On every entry of a run of a user's own job (its output too): the uid of the account whose
    /// job it is, recorded when its file was read; none on a system job's. What a user is shown of
    /// a job's runs is the entries of her uid: a name may have been another account's before.
    package static let jobUID = "JOBD_JOB_UID"
    /// On `run.leftovers` and `run.exit`: processes the run left behind when its main process ended.
    package static let leftovers = "JOBD_LEFTOVERS"
    /// `run.mail`: who a run's output was mailed to (`MailTo=`), comma-separated.
    package static let recipients = "JOBD_RECIPIENTS"
    /// On every entry of a run not asked for by a trigger: why (`manual`, `retry`, `on-failure`, `on-success`).
    package static let cause = "JOBD_CAUSE"
    package static let reason = "JOBD_REASON"
    package static let exitCode = "EXIT_CODE"
    package static let exitStatus = "EXIT_STATUS"
    package static let pid = "JOBD_PID"
    package static let durationUSec = "JOBD_DURATION_USEC"
    /// On `run.abandoned`: when the abandoned run started, in microseconds since the epoch.
    package static let startUSec = "JOBD_START_USEC"
    /// On `job.overdue` and `job.overdue-cleared`: when the job fell overdue (its last success, or
    /// when it entered the configuration, plus `ExpectSuccessWithinSec=`), and its last success, in
    /// microseconds since the epoch.
    package static let deadlineUSec = "JOBD_DEADLINE_USEC"
    package static let lastSuccessUSec = "JOBD_LAST_SUCCESS_USEC"
    /// On `daemon.ready` and `reload.done`: `LeakGraceSec=` in microseconds, so that an audit of the
    /// journal judges retired owners by the grace jobd itself gave them.
    package static let leakGraceUSec = "JOBD_LEAK_GRACE_USEC"
    package static let file = "CONFIG_FILE"
    package static let line = "CONFIG_LINE"
    /// On runs of `RunOn=one-node` jobs: the node that claimed the elapse.
    package static let node = "JOBD_NODE"
    /// On every entry of a run a trigger asked for (started, waiting, skipped, retried): the
    /// elapse it serves (the scheduled time, microseconds since the epoch), as the fleet's claims
    /// table has it for a `RunOn=one-node` job.
    package static let elapseUSec = "JOBD_ELAPSE_USEC"
    /// On the entry saying that a run is skipped for a `Condition…=`: that condition (`ConditionPathExists=/srv`).
    package static let condition = "JOBD_CONDITION"
    /// On `run.start` and `run.exit` where jobd has a delegated cgroup: the run's cgroup, as
    /// `/proc/PID/cgroup` names it (`/system.slice/jobd.service/run-…`).
    package static let cgroup = "JOBD_CGROUP"
    /// On `run.exit` where the run had a cgroup: its CPU time in microseconds (`cpu.stat`), in all
    /// and in user and kernel mode, and its peak memory in bytes (`memory.peak`, where there is one).
    package static let cpuUSec = "JOBD_CPU_USEC"
    package static let cpuUserUSec = "JOBD_CPU_USER_USEC"
    package static let cpuSystemUSec = "JOBD_CPU_SYSTEM_USEC"
    package static let memoryPeak = "JOBD_MEMORY_PEAK"
    /// On jobd's start-up line about how it tracks runs: `cgroup` or `process-group`.
    package static let tracking = "JOBD_TRACKING"
    /// On `log.dropped`: how many entries were dropped, and how many of each event
    /// (`run.output=12,run.exit=1`; entries of no event count as `other`).
    package static let droppedCount = "JOBD_DROPPED_COUNT"
    package static let droppedEvents = "JOBD_DROPPED_EVENTS"
    /// On `clock.change`: how long the machine was suspended, and how far the wall clock was set
    /// beyond that (negative: back), in microseconds.
    package static let suspendedUSec = "JOBD_SUSPENDED_USEC"
    package static let clockJumpUSec = "JOBD_CLOCK_JUMP_USEC"
    /// On `crontab.replace`, `crontab.delete`, `crontab.list`: the uid of who ran crontab(1)
    /// (from `SO_PEERCRED`), and the uid and name of the user whose crontab it was.
    package static let callerUID = "JOBD_CALLER_UID"
    package static let crontabUID = "JOBD_CRONTAB_UID"
    package static let crontabUser = "JOBD_CRONTAB_USER"
    /// On `jobd.handover`: how many runs in flight jobd left to the next one.
    package static let runCount = "JOBD_RUN_COUNT"
}

extension Logger {
    /// Logs one jobd event. `fields` are journal fields (see ``JobdField``); they travel as swift-log
    /// metadata, so any log handler can show them and the journal handler writes them as fields.
    package func event(
        _ kind: JobdEvent,
        level: Logger.Level = .info,
        _ message: @autoclosure () -> String,
        _ fields: [String: String] = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard level >= self.logLevel else { return }
        var metadata = Logger.Metadata(minimumCapacity: fields.count + 1)
        metadata[JobdField.event] = .string(kind.rawValue)
        for (key, value) in fields { metadata[key] = .string(value) }
        self.log(level: level, "\(message())", metadata: metadata, file: file, function: function, line: line)
    }
}
