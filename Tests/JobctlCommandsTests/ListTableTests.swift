import Foundation
@testable import JobctlCommands
@testable import JobctlReports
import JobdControl
import Testing

/// `jobctl list`'s table, laid out without a daemon: aligned columns (counted in characters, not
/// bytes), the last one not padded, colour that does not move them, a NODE column in a fleet.
@Suite struct ListTableTests {
    static let now: Int64 = 1_795_439_430_250_000

    static func job(_ name: String, triggers: [String], result: String? = nil) -> JobStatus {
        var job = JobStatus(
            name: name, file: "/etc/jobd/jobs.d/\(name).job", description: nil, command: "/bin/true", triggers: triggers,
            nextElapseUSec: nil, lastTriggerUSec: nil, lastStartUSec: nil, lastFinishUSec: nil, lastOutcome: nil,
            running: 0, owner: 1, generation: 1)
        job.lastResult = result
        return job
    }

    static var jobs: [JobStatus] {
        var off = job("off", triggers: ["OnCalendar=weekly"])
        off.disabled = true
        var broken = job("broken", triggers: [])
        broken.errors = ["/etc/jobd/jobs.d/broken.job:3: error: unknown key 'X='\nsecond line", "another error"]
        return [
            job("backup", triggers: ["OnCalendar=daily", "OnBootSec=5min"], result: "success"),
            job("café", triggers: ["Cron=0 3 * * *"], result: "exit-code"),
            off, broken,
        ]
    }

    static func text(_ jobs: [JobStatus], colour: Bool = false) -> String {
        String(decoding: ListTable.render(jobs, now: now, colour: colour), as: UTF8.self)
    }

    @Test func columnsAreAlignedByCharactersAndTheLastIsNotPadded() {
        #expect(Self.text(Self.jobs) == """
            NEXT LEFT     LAST PASSED RESULT      JOB    TRIGGER
            n/a  n/a      n/a  n/a    success     backup OnCalendar=daily OnBootSec=5min
            n/a  n/a      n/a  n/a    exit-code   café   Cron=0 3 * * *
            -    disabled n/a  n/a    -           off    OnCalendar=weekly
            n/a  n/a      n/a  n/a    bad-setting broken /etc/jobd/jobs.d/broken.job:3: error: unknown key 'X='

            4 job(s) listed.

            """)
    }

    /// A job with a run in flight says so in RESULT, whatever its last run's result.
    @Test func aRunningJobIsMarked() {
        var busy = Self.job("busy", triggers: ["OnCalendar=hourly"], result: "exit-code")
        busy.running = 1
        #expect(Self.text([busy]).split(separator: "\n")[1] == "n/a  n/a  n/a  n/a    running busy OnCalendar=hourly")
    }

    @Test func colourPaintsResultsWithoutMovingTheColumns() {
        let coloured = Self.text(Self.jobs, colour: true)
        #expect(coloured.contains("\u{1B}[0;32msuccess\u{1B}[0m     backup"))
        #expect(coloured.contains("\u{1B}[0;1;31mexit-code\u{1B}[0m   café"))
        #expect(!coloured.contains("\u{1B}[0;1;31mbad-setting"), "not a run's result")
        #expect(coloured.replacingOccurrences(of: "\u{1B}[0;32m", with: "").replacingOccurrences(of: "\u{1B}[0;1;31m", with: "")
            .replacingOccurrences(of: "\u{1B}[0m", with: "") == Self.text(Self.jobs))
    }

    @Test func aFleetAddsTheNodeThatRanEachJobLast() {
        var jobs = Self.jobs
        jobs[1].lastNode = "node-b"
        let lines = Self.text(jobs).split(separator: "\n")
        #expect(lines[0] == "NEXT LEFT     LAST PASSED RESULT      JOB    TRIGGER                                                NODE")
        #expect(lines[2] == "n/a  n/a      n/a  n/a    exit-code   café   Cron=0 3 * * *                                         node-b")
        #expect(lines[3].hasSuffix("OnCalendar=weekly                                      -"))
    }

    @Test func timesAreShownAsWallClockAndRelativeToNow() {
        var job = Self.job("soon", triggers: ["OnStartupSec=10min"])
        job.nextElapseUSec = Self.now + 19 * 60_000_000 + 3_000_000
        job.lastStartUSec = Self.now - 40 * 60_000_000
        job.lastStartCause = "manual"
        let row = Self.text([job]).split(separator: "\n")[1]
        #expect(row.hasPrefix(TimeFormat.wallClock(job.nextElapseUSec) + " 19min left " + TimeFormat.wallClock(job.lastStartUSec)
            + " 40min ago (manual) - "))
    }

    @Test func anEmptyListIsTheHeaderAndTheCount() {
        #expect(Self.text([]) == "NEXT LEFT LAST PASSED RESULT JOB TRIGGER\n\n0 job(s) listed.\n")
    }
}

/// What reaches a terminal from a job: control characters but tab escaped, as journalctl escapes them.
@Suite struct TerminalTextTests {
    @Test func controlCharactersAreEscaped() {
        #expect(TerminalText.escaped("plain\ttext é 😀") == "plain\ttext é 😀")
        #expect(TerminalText.escaped("\u{1B}]0;X\u{07}\u{1B}[2K") == "\\x1b]0;X\\x07\\x1b[2K")
        #expect(TerminalText.escaped("a\rb\nc\u{7F}\u{9B}") == "a\\x0db\\x0ac\\x7f\\x9b")
        // An error and its hint keep their lines; what they quote does not (issue 37).
        #expect(TerminalText.escapedLines("a.job:2: error: Key\u{1B}[2J=\n  hint: x\r") == "a.job:2: error: Key\\x1b[2J=\n  hint: x\\x0d")
    }
}
