import Foundation
import JobdControl
import JobdTestKit
import Testing

/// The list reply and the other responses, written and read by hand (``JSONWriter``,
/// ``JSONReader``), against Foundation's `JSONEncoder` and `JSONDecoder` as the reference: the same
/// bytes out, the same values in.
struct ResponseJSONTests {
    static func encoded(_ value: some Encodable, pretty: Bool = false) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// What jobd writes where `JSONEncoder` writes a value: its bytes, but for the one planned
    /// difference, the empty `kept` a reload report carries for the jobctl before `keptCount`.
    static func reference(_ value: some Encodable, pretty: Bool = false) throws -> String {
        let text = String(decoding: try encoded(value, pretty: pretty), as: UTF8.self)
        guard pretty else { return text.replacing(#""keptCount":"#, with: #""kept":[],"keptCount":"#) }
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let key = line.firstRange(of: #""keptCount" : "#) {
                let indent = String(line[..<key.lowerBound])
                lines += [indent + #""kept" : ["#, "", indent + "],"]
            }
            lines.append(String(line))
        }
        return lines.joined(separator: "\n")
    }

    /// Strings that need every kind of escape, and some that need none.
    static let awkward = [
        "", "backup", "/srv/jobs.d/a b.job", "say \"hi\"", "back\\slash", "tab\there", "line\nbreak", "\r\u{8}\u{C}",
        "\u{1}\u{1F}\u{7F}", "été", "😀 emoji", "\u{2028}", "/bin/sh -c 'echo $HOME > /tmp/x'",
    ]

    /// A status with every field set, so that a field the hand-written JSON forgets shows.
    static let full: JobStatus = {
        var status = JobStatus(
            name: "full", file: "/etc/jobd/jobs.d/full.job", description: "every field", command: "/bin/true",
            triggers: ["OnCalendar=daily", "OnBootSec=5min"], nextElapseUSec: 1_763_900_000_000_000,
            lastTriggerUSec: 1_763_800_000_000_000, lastStartUSec: 1_763_800_000_000_100, lastFinishUSec: 1_763_800_000_900_000,
            lastOutcome: "exited with status 7", running: 1, owner: 42, generation: 3)
        status.lastResult = "exit-code"
        status.lastExitStatus = "7"
        status.lastDurationUSec = 899_900
        status.lastRunID = "0123456789abcdef0123456789abcdef"
        status.lastStartCause = "manual"
        status.lastNode = "node-b"
        status.runs = [JobStatus.RunInFlight(runID: 9, invocationID: "fedcba", pid: 4242, startedUSec: 1_763_800_001_000_000, cause: "retry"),
                       JobStatus.RunInFlight(runID: 10, invocationID: "abc", pid: nil, startedUSec: -1, cause: "timer")]
        status.retryUSec = 1_763_800_060_000_000
        status.disabled = true
        status.errors = ["/etc/jobd/jobs.d/full.job:3: error: unknown key 'X='", "second"]
        status.exposureTenths = 67
        status.persistent = true
        status.overlap = "queue"
        status.conditions = ["ConditionPathExists=/srv", "ConditionHost=|!db1"]
        status.security = [
            SecurityCheck(id: "PrivateNetwork=", description: "Service has access to the host's network", weight: 2500, range: 1, badness: 1,
                          exposureTenths: 5),
            SecurityCheck(id: "RemoveIPC=", description: "Service runs as root, option does not apply", weight: 100, range: 1, badness: nil,
                          exposureTenths: nil),
        ]
        return status
    }()

    static func randomStatus(_ random: inout SplitMix64) -> JobStatus {
        func text() -> String { awkward.randomElement(using: &random)! + String(random.next() % 1000) }
        func maybe<Value>(_ value: @autoclosure () -> Value) -> Value? { Bool.random(using: &random) ? value() : nil }
        func microseconds() -> Int64 { Int64.random(in: Int64.min...Int64.max, using: &random) }
        var status = JobStatus(
            name: text(), file: text(), description: maybe(text()), command: text(),
            triggers: (0..<Int.random(in: 0...3, using: &random)).map { _ in text() }, nextElapseUSec: maybe(microseconds()),
            lastTriggerUSec: maybe(microseconds()), lastStartUSec: maybe(microseconds()), lastFinishUSec: maybe(microseconds()),
            lastOutcome: maybe(text()), running: Int.random(in: 0...Int.max, using: &random), owner: random.next(), generation: random.next())
        status.lastResult = maybe(text())
        status.lastExitStatus = maybe(text())
        status.lastDurationUSec = maybe(random.next())
        status.lastRunID = maybe(text())
        status.lastStartCause = maybe(text())
        status.lastNode = maybe(text())
        status.runs = maybe((0..<Int.random(in: 0...2, using: &random)).map { _ in
            JobStatus.RunInFlight(runID: random.next(), invocationID: text(), pid: maybe(Int32.random(in: .min ... .max, using: &random)),
                                  startedUSec: microseconds(), cause: text())
        })
        status.retryUSec = maybe(microseconds())
        status.disabled = maybe(Bool.random(using: &random))
        status.errors = maybe([text()])
        status.exposureTenths = maybe(Int.random(in: 0...100, using: &random))
        status.persistent = maybe(Bool.random(using: &random))
        status.overlap = maybe(text())
        status.conditions = maybe([text()])
        status.security = maybe((0..<Int.random(in: 0...2, using: &random)).map { _ in
            SecurityCheck(id: text(), description: text(), weight: Int.random(in: 0...2500, using: &random), range: Int.random(in: 1...10, using: &random),
                          badness: maybe(Int.random(in: 0...10, using: &random)), exposureTenths: maybe(Int.random(in: 0...10, using: &random)))
        })
        return status
    }

    @Test func aStatusIsWrittenAsJSONEncoderWritesIt() throws {
        var random = SplitMix64(seed: 19)
        for status in [Self.full] + (0..<300).map({ _ in Self.randomStatus(&random) }) {
            var compact = JSONWriter()
            status.write(to: &compact)
            #expect(compact.bytes == (try Self.encoded(status)), "\(String(decoding: compact.bytes, as: UTF8.self))")
        }
    }

    /// `jobctl list --json` prints the list so: the same text as before it was written by hand.
    @Test func aListIsPrettyPrintedAsJSONEncoderPrintsIt() throws {
        var random = SplitMix64(seed: 20)
        let lists = [[], [Self.full], (0..<50).map { _ in Self.randomStatus(&random) }]
        for list in lists {
            var pretty = JSONWriter(pretty: true)
            pretty.beginArray()
            for status in list { status.write(to: &pretty) }
            pretty.endArray()
            #expect(String(decoding: pretty.bytes, as: UTF8.self) == String(decoding: try Self.encoded(list, pretty: true), as: UTF8.self))
        }
    }

    /// jobd writes a long list in parts, on several threads, and joins them: the same line as the
    /// list written at once, however the statuses are split (parts empty, one, many).
    @Test func aListWrittenInPartsIsTheListWrittenAtOnce() {
        var random = SplitMix64(seed: 21)
        let list = [Self.full] + (0..<40).map { _ in Self.randomStatus(&random) }
        for cuts in [[], [0], [41], [0, 0, 41], [1, 2, 3, 40], [20], [7, 7, 30]] {
            let bounds = [0] + cuts + [list.count]
            let parts = zip(bounds, bounds.dropFirst()).map { from, to in
                var writer = JSONWriter()
                writer.beginElements()
                for status in list[from..<to] { status.write(to: &writer) }
                writer.endElements()
                return writer.bytes
            }
            let expected = ControlResponse(type: .list, jobs: list).jsonLine
            #expect(ControlResponse.listLine(jobParts: parts) == expected, "cut at \(cuts)")
        }
        #expect(ControlResponse.listLine(jobParts: []) == ControlResponse(type: .list, jobs: []).jsonLine)
    }

    /// `jobctl list --json` writes its output out in pieces, reusing the writer's memory: the same
    /// text as written at once, wherever the pieces end.
    @Test func aPrettyListTakenInPiecesIsTheListWrittenAtOnce() {
        var random = SplitMix64(seed: 23)
        let list = [Self.full] + (0..<30).map { _ in Self.randomStatus(&random) }
        var whole = JSONWriter(pretty: true)
        list.write(to: &whole)
        for every in [1, 2, 7] {
            var pieces: [UInt8] = []
            var writer = JSONWriter(pretty: true)
            writer.beginArray()
            for index in list.indices {
                list[index].write(to: &writer)
                if index % every == 0 { writer.takeBytes { pieces += $0 } }
            }
            writer.endArray()
            #expect(pieces + writer.bytes == whole.bytes, "taken after every \(every)")
        }
    }

    /// Pretty indentation deeper than the writer appends at once (32 spaces) is JSONEncoder's too.
    @Test func deepIndentationIsJSONEncodersIndentation() throws {
        struct Node: Encodable { var children: [Node] }
        var node = Node(children: [])
        for _ in 0..<25 { node = Node(children: [node]) }
        var writer = JSONWriter(pretty: true)
        func write(_ node: Node) {
            writer.beginObject()
            writer.key("children")
            writer.beginArray()
            for child in node.children { write(child) }
            writer.endArray()
            writer.endObject()
        }
        write(node)
        #expect(writer.bytes == (try Self.encoded(node, pretty: true)))
    }

    /// Every stored property of a status is in its JSON: a field added to ``JobStatus`` but not to
    /// its hand-written JSON fails here.
    @Test func everyFieldOfAStatusIsWritten() throws {
        var writer = JSONWriter()
        Self.full.write(to: &writer)
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]).keys
        let fields = Mirror(reflecting: Self.full).children.compactMap(\.label)
        #expect(Set(keys) == Set(fields))
        let runKeys = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])["runs"] as? [[String: Any]]
        #expect(Set(runKeys?.first?.keys.map { $0 } ?? []) == Set(Mirror(reflecting: Self.full.runs![0]).children.compactMap(\.label)))
        let checkKeys = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])["security"] as? [[String: Any]]
        #expect(Set(checkKeys?.first?.keys.map { $0 } ?? []) == Set(Mirror(reflecting: Self.full.security![0]).children.compactMap(\.label)))
    }

    /// The reader reserves room for a list by the shortest a status can be: no shorter one exists.
    @Test func theShortestStatusIsAsLongAsTheReaderAssumes() {
        var writer = JSONWriter()
        JobStatus(
            name: "", file: "", description: nil, command: "", triggers: [], nextElapseUSec: nil, lastTriggerUSec: nil,
            lastStartUSec: nil, lastFinishUSec: nil, lastOutcome: nil, running: 0, owner: 0, generation: 0
        ).write(to: &writer)
        #expect(writer.bytes.count == JobStatus.minimumJSONBytes)
    }

    static var responses: [ControlResponse] {
        var random = SplitMix64(seed: 21)
        var output = ControlResponse(type: .runOutput)
        output.line = "progress: 50% \"done\"\t/"
        output.stream = "stderr"
        var lost = ControlResponse(type: .runOutputLost)
        lost.lost = 1_024
        var entry = ControlResponse(type: .logEntry)
        entry.fields = ["JOBD_EVENT=run.skip", "JOBD_REASON=claimed-by node-b", "JOB=alice:backup"]
        entry.timeUSec = 1_763_800_000_000_000
        var finished = RunReport(job: "backup", runID: 7, exitCode: "exited", exitStatus: "7", shellStatus: 7, succeeded: false)
        finished.result = "exit-code"
        finished.invocationID = "abc"
        let daemon = DaemonStatus(
            pid: 12, instance: "default", generation: 4, startedRealtimeUSec: 1_763_800_000_000_000, jobs: 2, liveOwners: 2,
            liveTimers: 3, armedTimers: 2, runningJobs: 0, lastReload: ReloadReport(sequence: 2, accepted: true, generation: 4))
        return Self.everyPart + [
            ControlResponse(type: .list, jobs: []),
            ControlResponse(type: .list, jobs: [Self.full] + (0..<20).map { _ in Self.randomStatus(&random) }),
            ControlResponse(type: .job, jobStatus: Self.full),
            ControlResponse(type: .status, daemon: daemon),
            .error("no such job: \"x\"", code: .permissionDenied),
            .error("jobd is stopping"),
            ControlResponse(type: .runFinished, run: finished),
            ControlResponse(type: .reloadResult, reload: ReloadReport(sequence: 3, accepted: false, generation: 4)),
            ControlResponse(type: .stopRequested, message: "1 run(s) of backup asked to stop"),
            output, lost, entry,
        ]
    }

    @Test func responsesAreWrittenAsJSONEncoderWritesThemAndReadBack() throws {
        for response in Self.responses {
            let line = response.jsonLine
            #expect(String(decoding: line, as: UTF8.self) == (try Self.reference(response)) + "\n")
            #expect(try ControlResponse(jsonLine: Array(line.dropLast())) == response)
            #expect(try JSONDecoder().decode(ControlResponse.self, from: Data(line)) == response)
        }
    }

    /// Responses with every part and every optional field of a part set.
    static var everyPart: [ControlResponse] {
        var run = RunReport(job: "backup", runID: 8, skipReason: "overlap", exitCode: "killed", exitStatus: "TERM", shellStatus: 143, succeeded: false)
        run.result = "signal"
        run.invocationID = "0123456789abcdef0123456789abcdef"
        run.reason = "no such file: /srv/x"
        (run.retryRunID, run.retryAttempt, run.retryLimit, run.retryDelayUSec) = (9, 1, 3, 30_000_000)
        let reload = ReloadReport(
            sequence: 5, accepted: false, generation: 7, added: ["new"], changed: ["a", "b/c"], removed: ["old"], kept: 9_998,
            errors: ["/etc/jobd/jobs.d/x.job:2: error: \"bad\""], finishedRealtimeUSec: 1_763_800_000_000_001)
        var daemon = DaemonStatus(
            pid: Int32.max, instance: "0123456789abcdef", generation: UInt64.max, startedRealtimeUSec: Int64.min, jobs: 10_000,
            liveOwners: 10_001, liveTimers: 3, armedTimers: 2, runningJobs: 1, lastReload: reload, retiredOwnersAlive: 4, leakedOwners: 5)
        daemon.brokenFiles = ["/etc/jobd/jobs.d/x.job:2: error: \"bad\"", "\t\u{1}"]
        let elapse = SchedulePreview.Elapse(job: "backup", earliestUSec: 1_763_800_000_000_000, latestUSec: 1_763_800_600_000_000,
                                            trigger: "OnCalendar=*-*-* 00:00:00", reason: "catch-up", retries: "on-failure: 1 retry at +1s")
        let preview = SchedulePreview(
            nowUSec: Int64.min, elapses: [elapse, SchedulePreview.Elapse(job: "b", earliestUSec: 0, latestUSec: 0, trigger: "", reason: "missed")],
            changes: [SchedulePreview.Change(job: "a", kind: "changed", keys: ["ExecStart", "Cron"], before: elapse, after: elapse),
                      SchedulePreview.Change(job: "new", kind: "added")],
            kept: 9_998, accepted: false, errors: ["/etc/jobd/jobs.d/x.job:2: error: \"bad\""])
        var incomplete = preview
        incomplete.incomplete = true
        return [
            ControlResponse(type: .plan, schedule: preview),
            ControlResponse(type: .plan, schedule: incomplete),
            ControlResponse(type: .reloadPreview, schedule: SchedulePreview(nowUSec: 1)),
            ControlResponse(type: .runFinished, run: run),
            ControlResponse(type: .reloadResult, reload: reload),
            ControlResponse(type: .status, daemon: daemon),
        ]
    }

    /// `jobctl status --json` prints the daemon's status and a job's as `JSONEncoder` printed them,
    /// pretty, but for the reload report's `kept` (issue 30).
    @Test func statusJSONIsPrintedAsBefore() throws {
        for response in Self.everyPart + Self.responses {
            if let daemon = response.daemon {
                var writer = JSONWriter(pretty: true)
                daemon.write(to: &writer)
                let written = String(decoding: writer.bytes, as: UTF8.self)
                #expect(written == (try Self.reference(daemon, pretty: true)), "\(written)")
            }
            if let job = response.jobStatus {
                var writer = JSONWriter(pretty: true)
                job.write(to: &writer)
                #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.reference(job, pretty: true)))
            }
        }
    }

    /// What JSONDecoder reads, the hand-written reader reads the same: other layouts, other key
    /// orders, unknown keys, explicit nulls, escapes written differently.
    @Test func otherSpellingsOfTheSameResponseReadAsJSONDecoderReadsThem() throws {
        let spellings = [
            #"{"version":1,"type":"list","jobs":[]}"#,
            " {\n \"type\" : \"list\" ,\r\n\t\"version\" : 1 , \"jobs\" : null, \"extra\": [1, -2.5e+3, {\"a\": [true, false, null]}, \"\\\"\"] } ",
            #"{"type":"job","version":1,"jobStatus":{"triggers":[],"running":0,"owner":1,"generation":2,"name":"\u00e9t\u00C9 \ud83d\ude00 \/ \n","file":"f","command":"c","description":null,"runs":[{"cause":"timer","runID":3,"startedUSec":-4,"invocationID":"i","pid":null,"new":{}}],"future":"field"}}"#,
            #"{"type":"error","version":1,"code":"busy","message":"\u0000 NUL","daemon":null,"run":null,"reload":null}"#,
            #"{"type":"run-finished","version":1,"run":{"job":"x","succeeded":true,"shellStatus":0}}"#,
            #"{"type":"run-finished","version":1,"run":{"job":"x","runID":null,"exitCode":null,"later":[{}],"retryLimit":3}}"#,
            #"{"type":"reload-result","version":1,"reload":{"sequence":1,"accepted":true,"generation":2,"added":[],"changed":[],"removed":["\/x"],"errors":[],"keptCount":3,"kept":["ignored"]}}"#,
            #"{"type":"status","version":1,"daemon":{"pid":1,"instance":"i","generation":2,"startedRealtimeUSec":-3,"jobs":4,"liveOwners":5,"liveTimers":6,"armedTimers":7,"runningJobs":8,"retiredOwnersAlive":9,"leakedOwners":10,"lastReload":null,"brokenFiles":null,"new":1}}"#,
        ]
        for spelling in spellings {
            let bytes = Array(spelling.utf8)
            #expect(try ControlResponse(jsonLine: bytes) == (try JSONDecoder().decode(ControlResponse.self, from: Data(bytes))), "\(spelling)")
        }
    }

    /// Lines with a byte changed here and there: never a crash, and where both readers accept
    /// one, they read the same response. (Neither reads all that the other does: `JSONDecoder`
    /// skips the value of a key it does not know unchecked, so a raw control character there,
    /// which JSON does not allow and the hand-written reader refuses, passes; the hand-written
    /// reader refuses invalid UTF-8 and a key given twice.)
    @Test func mutatedResponsesReadAsJSONDecoderReadsThemOrAreErrors() {
        var random = SplitMix64(seed: 22)
        let lines = Self.responses.map { Array($0.jsonLine.dropLast()) }
        let alphabet = Array(#"{}[]:,"\/0123456789-+.eEtrufalsn "#.utf8) + [0x00, 0x0A, 0x7F, 0xC3, 0xFF]
        var bothRead = 0
        for _ in 0..<3_000 {
            var line = lines.randomElement(using: &random)!
            for _ in 0...Int.random(in: 0...2, using: &random) {
                let index = Int.random(in: 0..<line.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: line[index] = alphabet.randomElement(using: &random)!
                case 1: line.remove(at: index)
                default: line.insert(alphabet.randomElement(using: &random)!, at: index)
                }
            }
            let mine = try? ControlResponse(jsonLine: line)
            guard let mine, let foundation = try? JSONDecoder().decode(ControlResponse.self, from: Data(line)) else { continue }
            bothRead += 1
            #expect(mine == foundation, "\(String(decoding: line.prefix(300), as: UTF8.self))")
        }
        #expect(bothRead > 100, "the mutations left too few readable lines to compare")
    }

    /// Whatever jobd (or something else on its socket) sends, jobctl gets an error, not a crash
    /// or a wrong value: every truncation of a valid line, and lines that are wrong in one place.
    @Test func malformedResponsesAreErrors() throws {
        let line = Array(ControlResponse(type: .list, jobs: [Self.full]).jsonLine.dropLast())
        for length in 0..<line.count {
            #expect(throws: ControlError.self) { try ControlResponse(jsonLine: Array(line.prefix(length))) }
        }
        let wrong = [
            #"{"type":"list","version":1,"jobs":[{"name":1}]}"#,
            #"{"type":"list","version":1,"jobs":[{"name":"a","file":"f","command":"c","triggers":[],"running":0,"owner":1}]}"#,
            #"{"type":"job","version":1,"jobStatus":{"name":"a","file":"f","command":"c","triggers":[],"running":0,"owner":-1,"generation":0}}"#,
            #"{"type":"status","version":18446744073709551616}"#,
            #"{"type":"status","version":1.0}"#,
            #"{"type":"no-such-type","version":1}"#,
            #"{"type":"status"}"#,
            #"{"type":"status","version":1} trailing"#,
            #"{"type":"status","version":1,}"#,
            #"{"type":"error","version":1,"message":"\ud800"}"#,
            #"{"type":"error","version":1,"message":"\x"}"#,
            "{\"type\":\"error\",\"version\":1,\"message\":\"raw\ttab\"}",
            #"{"type":"status","version":1,"daemon":{"pid":"x"}}"#,
            #"{"type":"status","version":1,"daemon":{"pid":1,"instance":"i","generation":2,"startedRealtimeUSec":3,"jobs":4,"liveOwners":5,"liveTimers":6,"armedTimers":7,"runningJobs":8,"retiredOwnersAlive":9}}"#,
            #"{"type":"run-finished","version":1,"run":{"runID":1}}"#,
            #"{"type":"run-finished","version":1,"run":{"job":"x","succeeded":"yes"}}"#,
            #"{"type":"reload-result","version":1,"reload":{"sequence":1,"accepted":true,"generation":2,"added":[],"changed":[],"removed":[],"errors":[]}}"#,
            #"{"type":"reload-result","version":1,"reload":{"sequence":1,"accepted":true,"generation":2,"added":[],"changed":[],"removed":[],"errors":[],"kept":3}}"#,
            #"{"type":"status","version":1,"deep":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}",
            // A key twice: which value counts would be a guess. In order, out of order, nested.
            #"{"line":"a","line":"b","type":"run-output","version":1}"#,
            #"{"type":"run-output","line":"a","version":1,"line":"b"}"#,
            #"{"jobs":[{"command":"c","file":"f","generation":0,"name":"a","owner":1,"running":0,"triggers":[],"name":"b"}],"type":"list","version":1}"#,
        ]
        for text in wrong {
            #expect(throws: ControlError.self, "\(text.prefix(80))") { try ControlResponse(jsonLine: Array(text.utf8)) }
        }
        // Bytes that are not UTF-8 in a string, with and without an escape before them.
        for bytes: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0x5C, 0x6E, 0xFF]] {
            let line = Array(#"{"type":"error","version":1,"message":""#.utf8) + bytes + Array(#""}"#.utf8)
            #expect(throws: ControlError.self, "\(bytes)") { try ControlResponse(jsonLine: line) }
        }
    }

    /// Keys in any order read as in jobd's order; only a repeated one is refused.
    /// A brief list (jobctl's table) leaves out each status's command and file, and is read back
    /// with them empty; read as a full list, it is an error. A full list reads the same as brief.
    @Test func aBriefStatusLeavesOutItsCommandAndFile() throws {
        var random = SplitMix64(seed: 22)
        for var status in [Self.full] + (0..<100).map({ _ in Self.randomStatus(&random) }) {
            var writer = JSONWriter()
            status.write(to: &writer, brief: true)
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]).keys
            #expect(!keys.contains("command") && !keys.contains("file"))
            var full = JSONWriter()
            status.write(to: &full)
            let line = ControlResponse.listLine(jobParts: [writer.bytes])
            #expect(throws: ControlError.self) { try ControlResponse(jsonLine: Array(line.dropLast())) }
            #expect(try ControlResponse(jsonLine: Array(ControlResponse.listLine(jobParts: [full.bytes]).dropLast()), briefJobs: true).jobs == [status])
            status.command = ""
            status.file = ""
            #expect(try ControlResponse(jsonLine: Array(line.dropLast()), briefJobs: true).jobs == [status])
        }
    }

    /// Keys are matched by their bytes, without a `String` each: a key written with escapes is the
    /// same key, and counts as a second one where it repeats another; an empty key is a key.
    @Test func escapedKeysAreTheKeysTheySpell() throws {
        let escaped = #"{"typ\u0065":"list","\u0076ersion":1,"jobs":[{"command":"c","file":"f","generation":1,"na\u006de":"n","owner":2,"running":0,"triggers":[],"":0}]}"#
        let response = try ControlResponse(jsonLine: Array(escaped.utf8))
        #expect(response.type == .list && response.version == 1 && response.jobs?.first?.name == "n")
        #expect(response == (try JSONDecoder().decode(ControlResponse.self, from: Data(escaped.utf8))))
        for repeated in [#"{"type":"list","typ\u0065":"list","version":1}"#, #"{"type":"list","version":1,"":1,"":2}"#,
                         #"{"type":"list","version":1,"\u00e9":1,"é":2}"#] {
            #expect(throws: ControlError.self, "\(repeated)") { try ControlResponse(jsonLine: Array(repeated.utf8)) }
        }
    }

    @Test func keysOutOfOrderAreRead() throws {
        let sorted = #"{"line":"a","lost":2,"stream":"stdout","type":"run-output","version":1}"#
        let shuffled = #"{"version":1,"stream":"stdout","line":"a","type":"run-output","lost":2}"#
        #expect(try ControlResponse(jsonLine: Array(shuffled.utf8)) == (try ControlResponse(jsonLine: Array(sorted.utf8))))
        #expect(try ControlResponse(jsonLine: Array(sorted.utf8)).line == "a")
    }
}

/// What a reader may read, by a file's permission bits as the kernel picks them.
@Suite struct ControlPeerTests {
    static let reader = ControlPeer(uid: 1000, gid: 1000, groups: [27, 100], level: .readOnly)

    @Test(arguments: [
        (1000, 0, 0o400, true), (1000, 0, 0o044, false),  // the owner's bits alone count for the owner
        (0, 100, 0o040, true), (0, 1000, 0o040, true), (0, 100, 0o404, false),  // a group of the reader's
        (0, 0, 0o004, true), (0, 0, 0o640, false), (0, 0, 0o600, false),
    ] as [(UInt32, UInt32, UInt32, Bool)])
    func aReaderReadsByThePermissionBits(owner: UInt32, group: UInt32, mode: UInt32, readable: Bool) {
        #expect(Self.reader.mayRead(owner: owner, group: group, mode: mode) == readable)
        #expect(ControlPeer(uid: 1000, gid: 1000, groups: [], level: .full).mayRead(owner: owner, group: group, mode: mode))
    }
}
