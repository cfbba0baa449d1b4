package import ArgumentParser
import Glibc
import SystemdKit
import JobctlReports
import JobdSystem
import SystemPackage

extension Jobctl {
    /// `jobctl logs JOB`: a job's runs and their output, read from the journal with `sd_journal`.
    package struct Logs: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "logs",
            abstract: "Show a job's runs and output from the journal.",
            discussion: """
                Shows the journal entries jobd logged for JOB's runs (JOBD_EVENT=run.start, \
                run.output, run.exit, run.skip, ...: every run.* event), oldest first: each line of \
                the job's output is a run.output entry. Only entries of jobd are read (JOB=JOB, \
                written by root: SYSLOG_IDENTIFIER=jobd, and the job's output under the job's name or \
                its SyslogIdentifier=): of the local journal, or of --directory/--file.

                -n N shows the last N entries; -f (as journalctl -f) shows the last 10 and then \
                every new one as it is logged, until Ctrl-C. --run picks one run: 'last' (the job's \
                last run.start, across restarts of jobd), its JOBD_RUN_ID (32 hex digits), \
                INSTANCE:RUN (JOBD_INSTANCE and JOBD_RUN), or RUN, a JOBD_RUN of jobd's last instance.

                TIME and --boot are read as by journalctl (see jobctl audit --help): '-1h', 'today', \
                'yesterday', '2026-11-23 10:00', '-b -1'.

                Output: 'short' is 'Nov 23 10:00:00 JOB #RUN: MESSAGE'; 'json' one JSON object per \
                line with every field of the entry.

                An account outside the groups systemd-journal and adm sees only its own entries in \
                the local journal, so none of jobd's.

                Exit status: 0 when the journal was read (also when no entry matched: \
                '-- No entries --'), 1 when --run names no run of the job, 2 when the journal cannot \
                be read or holds no entry of jobd at all (jobd logs to stderr when it has no journal: \
                look at its service's output there), 64 on invalid arguments.
                """)

        @Argument(help: "The job's name.", completion: .custom(Jobctl.completeJobNames))
        var job: String

        @Flag(name: .shortAndLong, help: "Show the last entries, then follow new ones as they are logged.")
        var follow = false

        @Option(name: [.customShort("n"), .customLong("lines")], help: ArgumentHelp("Show the last N entries.", valueName: "N"))
        var lines: Int?

        @Option(name: .customLong("run"),
                help: ArgumentHelp("Only one run: last, a JOBD_RUN_ID, INSTANCE:RUN, or RUN of jobd's last instance.", valueName: "ID|last"))
        var selectedRun: String?

        @Option(name: [.customShort("o"), .long], help: "The output format: short or json.")
        var output: LogEntryFormatter.Style = .short

        @OptionGroup var journal: JournalOptions

        /// `jobctl --user logs JOB`: the entries as jobd reads them for the caller's own job, for a
        /// user who cannot read jobd's entries in the journal.
        @Flag(name: .customLong("from-jobd"), help: .hidden)
        var fromJobd = false

        @OptionGroup var runtime: RuntimeOptions

        package init() {}

        package func validate() throws {
            if fromJobd, follow || selectedRun != nil || output != .short {
                throw ValidationError("jobctl --user logs takes -n only (jobd reads the journal for you); -f, --run and -o need jobctl logs")
            }
            if let lines, lines < 0 { throw ValidationError("-n wants a number of entries, 0 or more") }
            if let selectedRun, RunSelector(selectedRun) == nil {
                throw ValidationError("'\(selectedRun)' is not a run: expected last, a JOBD_RUN_ID (32 hex digits), INSTANCE:RUN or a run number")
            }
        }

        static let noJournal: Int32 = 2
        static let noSuchRun: Int32 = 1

        package func run() throws {
            if fromJobd { return try Self.fromJobd(job: job, lines: lines, runtime: runtime) }
            let (since, until) = try journal.timeRange()
            let source: JournalReader.Source
            let reader: JournalReader
            var matches: [(String, String)]
            do {
                source = try journal.source()
                reader = try JournalReader(source)
                matches = try selection(source)
            } catch let error as SystemdError {
                throw Self.fail("cannot read the journal: \(error)", Self.noJournal)
            }
            let writer = LineWriter()
            let formatter = LogEntryFormatter(style: output)
            // jobd's entries only: written by root (jobd), whatever fields a forger set.
            let accept = { (entry: JournalEntry) -> Bool in
                (entry["JOBD_EVENT"]?.hasPrefix("run.") ?? false) && since.map { entry.realtimeUSec >= $0 } ?? true
                    && entry.writtenByRoot
            }
            matches.insert(("JOB", job), at: 0)
            // The output's SYSLOG_IDENTIFIER is the job's SyslogIdentifier= when it has one: JOB=
            // and the check above select the entries, whatever identifier they carry.
            matches.removeAll { $0.0 == "SYSLOG_IDENTIFIER" }
            do {
                for (field, value) in matches { try reader.addMatch(field, value) }
                let count = lines ?? (follow ? 10 : nil)
                var shown: [JournalEntry] = []
                if let count {
                    if let until { try reader.seek(realtimeSinceUSec: until &+ 1) } else { try reader.seekTail() }
                    while shown.count < count, let entry = try reader.previous() {
                        if let since, entry.realtimeUSec < since { break }
                        if accept(entry) { shown.append(entry) }
                    }
                    shown.reverse()
                } else {
                    if let since { try reader.seek(realtimeSinceUSec: since) } else { try reader.seekHead() }
                    while let entry = try reader.next() {
                        if let until, entry.realtimeUSec > until { break }
                        if accept(entry) { shown.append(entry) }
                    }
                }
                if shown.isEmpty && !follow { writer.write("-- No entries --") }
                for entry in shown { writer.write(formatter.format(entry)) }
                if follow { try self.follow(reader, after: shown.last, until: until, accept: accept, formatter: formatter, writer: writer) }
            } catch {
                throw Self.fail("cannot read the journal: \(error)", Self.noJournal)
            }
        }

        /// As `journalctl -f`: waits for new entries (sd_journal_wait) and prints them, until
        /// SIGINT or SIGTERM (exit 0), a closed standard output (exit 0), or an entry after `until`.
        private func follow(
            _ reader: JournalReader, after last: JournalEntry?, until: UInt64?,
            accept: (JournalEntry) -> Bool, formatter: LogEntryFormatter, writer: LineWriter
        ) throws(SystemdError) {
            signal(SIGINT) { _ in _exit(0) }
            signal(SIGTERM) { _ in _exit(0) }
            if let last {
                try reader.seek(cursor: last.cursor)
                // sd_journal_seek_cursor puts the reader before that entry: skip it.
                if let entry = try reader.next(), entry.cursor != last.cursor, accept(entry) {
                    writer.write(formatter.format(entry))
                }
            } else {
                // Nothing shown: start after the newest matching entry, if there is one (run.*
                // entries only are shown, but a job has others).
                try reader.seekTail()
                if try reader.previous() == nil { try reader.seekHead() }
            }
            while true {
                while let entry = try reader.next() {
                    if let until, entry.realtimeUSec > until { return }
                    if accept(entry) { writer.write(formatter.format(entry)) }
                }
                _ = try reader.wait(timeout: nil)
            }
        }

        /// The matches beyond `JOB=`: jobd's entries, the run, the boot. Throws `ExitCode` when
        /// jobd has no entries at all or the run is not there.
        private func selection(_ source: JournalReader.Source) throws -> [(String, String)] {
            // jobd's own entries, and the job's output, which jobd logs under the job's name (two
            // matches of one field are either-or for sd_journal).
            var matches = [("SYSLOG_IDENTIFIER", "jobd"), ("SYSLOG_IDENTIFIER", job)]
            if let boot = try journal.bootID(in: source) { matches.append(("_BOOT_ID", boot)) }
            // The newest entry of jobd: there is a journal of jobd at all, and its last instance.
            guard let newest = try Self.newest(source, matches) else {
                throw Self.fail("""
                    \(JournalOptions.describe(source)) holds no entry of jobd (SYSLOG_IDENTIFIER=jobd). \
                    jobd logs to stderr when no journald listens (or with JOBD_LOG_TARGET=stderr): \
                    its output is then wherever its stderr goes. An account outside the groups \
                    systemd-journal and adm cannot see jobd's entries in the system journal.
                    """, Self.noJournal)
            }
            guard let selector = selectedRun.flatMap(RunSelector.init) else { return matches }
            switch selector {
            case .id(let id):
                matches.append(("JOBD_RUN_ID", id))
            case .last:
                guard let start = try Self.newest(source, matches + [("JOB", job), ("JOBD_EVENT", "run.start")]) else {
                    throw Self.fail("\(job) has no run in \(JournalOptions.describe(source))", Self.noSuchRun)
                }
                matches += RunSelector.matches(runStart: start.fields)
            case .instanceRun(let instance, let run):
                matches += [("JOBD_INSTANCE", instance), ("JOBD_RUN", String(run))]
            case .number(let run):
                matches += [("JOBD_INSTANCE", newest["JOBD_INSTANCE"] ?? ""), ("JOBD_RUN", String(run))]
            }
            guard try Self.newest(source, matches + [("JOB", job)]) != nil else {
                throw Self.fail("no run \(selectedRun ?? "") of \(job) in \(JournalOptions.describe(source))", Self.noSuchRun)
            }
            return matches
        }

        /// The newest entry with every one of `matches`, in a reader of its own.
        private static func newest(_ source: JournalReader.Source, _ matches: [(String, String)]) throws(SystemdError) -> JournalEntry? {
            let reader = try JournalReader(source)
            for (field, value) in matches { try reader.addMatch(field, value) }
            try reader.seekTail()
            return try reader.previous()
        }

        private static func fail(_ message: String, _ code: Int32) -> ExitCode {
            var standardError = StandardError()
            print("jobctl logs: \(message)", to: &standardError)
            return ExitCode(code)
        }
    }
}

/// Writes lines to standard output, each at once with write(2) (a follower shows lines as they
/// come); when the reader has gone (EPIPE: `jobctl logs -f | head`), exits 0 as journalctl does.
final class LineWriter {
    init() { signal(SIGPIPE, SIG_IGN) }

    func write(_ line: String) {
        do throws(Errno) { try FileDescriptor.standardOutput.writeEvery(Array((line + "\n").utf8)) } catch { exit(0) }
    }
}
