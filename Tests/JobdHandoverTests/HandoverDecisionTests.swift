import Glibc
import JobdConfig
import JobdHandover
import Testing

/// What a SIGTERM means, and what a starting jobd does with each run a handover left (issue 36).
@Suite struct HandoverDecisionTests {
    @Test(arguments: [
        ("restart", StopKind.handover), ("try-restart", .handover),
        ("stop", .stop), ("start", .stop), ("reload", .stop), ("reload-or-start", .stop), ("try-reload", .stop),
        ("verify-active", .stop), ("nop", .stop), ("", .stop), ("RESTART", .stop),
    ])
    func aRestartHandsOverAndAnyOtherJobStops(jobType: String, kind: StopKind) {
        #expect(StopKind.decide(jobType: jobType) == kind)
    }

    @Test func notKnowingTheJobStops() {
        // No job (SIGTERM from kill(1)), or the bus could not be asked: nobody would adopt the runs.
        #expect(StopKind.decide(jobType: nil) == .stop)
    }

    @Test func aRecordWithItsProcessReadsBackTheSame() {
        let record = RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer", startUSec: 1_700_000_000_000_000,
                                       process: ProcessIdentity(pid: 4242, startTicks: 987_654))
        #expect(RunInFlightRecord(savedText: Substring(record.savedText), invocationID: "0123abcd") == record)
        #expect(record.savedText.contains("pid=4242\n"))
    }

    @Test func aRecordOfAnOlderJobdHasNoProcessAndIsAbandoned() {
        let old = RunInFlightRecord(savedText: "job=backup\ncause=timer\nstart=7\n", invocationID: "ab")
        #expect(old?.process == nil)
        #expect(old.map { Adoption.decide(record: $0, ended: [], liveStartTicks: 7) } == .abandon)
    }

    @Test func aRunThatEndedUnderTheKeeperIsFinishedWithItsRealEnd() {
        let process = ProcessIdentity(pid: 300, startTicks: 55)
        let ended = [EndedRun(process: ProcessIdentity(pid: 301, startTicks: 55), termination: .exited(0)),
                     EndedRun(process: process, termination: .exited(3))]
        #expect(Adoption.decide(record: record(process), ended: ended, liveStartTicks: nil) == .finish(.exited(3)))
    }

    @Test func aRunStillAliveIsFollowed() {
        let process = ProcessIdentity(pid: 300, startTicks: 55)
        #expect(Adoption.decide(record: record(process), ended: [], liveStartTicks: 55) == .follow(process))
    }

    @Test func aPidReusedByAnotherProcessIsNotAdoptedNorFinished() {
        let process = ProcessIdentity(pid: 300, startTicks: 55)
        // The pid now names a process started later; the keeper's file names an earlier one.
        let ended = [EndedRun(process: ProcessIdentity(pid: 300, startTicks: 12), termination: .exited(0))]
        #expect(Adoption.decide(record: record(process), ended: ended, liveStartTicks: 90) == .abandon)
    }

    @Test func aRunGoneWithNoKeeperRecordIsAbandoned() {
        #expect(Adoption.decide(record: record(ProcessIdentity(pid: 300, startTicks: 55)), ended: [], liveStartTicks: nil) == .abandon)
    }

    @Test(arguments: [
        ("pid=300\nstart_ticks=55\ncode=exited\nstatus=3\n", RunTermination?.some(.exited(3))),
        ("pid=300\nstart_ticks=55\ncode=killed\nstatus=9\n", .killed(signal: 9)),
        ("pid=300\nstart_ticks=55\ncode=dumped\nstatus=11\n", .dumped(signal: 11)),
        ("pid=300\nstart_ticks=55\ncode=exited\n", nil),
        ("pid=300\ncode=exited\nstatus=3\n", nil),
        ("pid=300\nstart_ticks=55\ncode=stopped\nstatus=19\n", nil),
    ])
    func theKeepersFileReadsAsTheRunsEnd(text: String, termination: RunTermination?) {
        let ended = EndedRun(keeperText: Substring(text))
        #expect(ended?.termination == termination)
        if ended != nil { #expect(ended?.process == ProcessIdentity(pid: 300, startTicks: 55)) }
    }

    @Test func theStartTimeIsField22EvenWhenTheCommandHoldsSpacesAndParentheses() {
        func stat(_ ticks: String, _ rest: String = " 1000000 200") -> Substring {
            Substring("4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 " + ticks + rest)
        }
        #expect(ProcessIdentity.startTicks(procStat: stat("987654")) == 987_654)
        #expect(ProcessIdentity.startTicks(procStat: "4242 (short) S 1") == nil)
        #expect(ProcessIdentity.startTicks(procStat: "4242 no command S 1") == nil)
        #expect(ProcessIdentity.startTicks(procStat: stat("98x654")) == nil)
        #expect(ProcessIdentity.startTicks(procStat: stat("99999999999999999999")) == nil, "more than a UInt64 holds")
        #expect(ProcessIdentity.startTicks(procStat: stat("987654", "\n")) == 987_654, "the last field before the line's end")
        #expect(ProcessIdentity.startTicks(procStat: stat("987654", "")) == 987_654, "the last field of the text")
    }

    /// The start time of this very process, as `/proc/self/stat` gives it, split as `ps` would.
    @Test func theStartTimeOfALiveProcessIsItsField22() throws {
        let fd = open("/proc/self/stat", O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = read(fd, &buffer, buffer.count)
        try #require(count > 0)
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        let field22 = text[text.index(after: text.lastIndex(of: ")")!)...].split(separator: " ")[19]
        #expect(ProcessIdentity.startTicks(procStat: Substring(text)) == UInt64(field22))
    }

    /// A handed-over run's record keeps its cgroup and the start of a line on each pipe, any bytes,
    /// through the state directory's text.
    @Test func aHandedOverRunsCgroupAndHalfLinesReadBackTheSame() {
        let handed = HandedOverRun(
            cgroupDirectory: "/sys/fs/cgroup/system.slice/jobd.service/runs/run-ab", cgroupPath: "/system.slice/jobd.service/runs/run-ab",
            cgroupLegacy: ["pids": "/sys/fs/cgroup/pids/jobd/run-ab"], pendingOutput: Array("half a li".utf8),
            pendingError: [0, 0x0a, 0xff, 0x3d])
        let kept = RunInFlightRecord(invocationID: "ab", job: "backup", cause: "timer", startUSec: 5,
                                     process: ProcessIdentity(pid: 300, startTicks: 55), handedOver: handed)
        #expect(RunInFlightRecord(savedText: Substring(kept.savedText), invocationID: "ab") == kept)
        #expect(HandedOverRun.outputName("ab") != HandedOverRun.errorName("ab"))
    }

    private func record(_ process: ProcessIdentity) -> RunInFlightRecord {
        RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer", startUSec: 1, process: process)
    }
}
