import Foundation
import JobdControl
import Testing

/// Request lines, written by jobctl and read by jobd by hand (``ControlRequest/jsonLine``,
/// ``ControlRequest/init(jsonLine:)``), against Foundation's `JSONEncoder` and `JSONDecoder` as
/// the reference.
struct RequestJSONTests {
    static var requests: [ControlRequest] {
        var requests: [ControlRequest] = [
            ControlRequest(command: .status), ControlRequest(command: .list), ControlRequest(command: .list, brief: true),
            ControlRequest(command: .watchReload), ControlRequest(command: .status, job: "a/b \"c\"\t\u{1}é"),
            ControlRequest(command: .run, job: "backup", wait: true, output: false, brief: false, followRetries: true),
            ControlRequest(command: .stop, job: "backup", wait: false), ControlRequest(command: .disable, job: "x"),
            ControlRequest(command: .enable, job: ""),
        ]
        var other = ControlRequest(command: .run, job: "y")
        other.version = -7
        requests.append(other)
        var history = ControlRequest(command: .logs, job: "alice:backup", lines: 40)
        history.history = true
        requests.append(history)
        var plan = ControlRequest(command: .plan)
        (plan.jobs, plan.fromUSec, plan.untilUSec, plan.limit) = (["a", "b/c"], 1_763_800_000_000_000, Int64.max, 100)
        requests += [plan, ControlRequest(command: .plan), ControlRequest(command: .reloadPreview)]
        var crontab = ControlRequest(command: .crontabInstall)
        (crontab.user, crontab.text, crontab.path) = ("alice", "* * * * * echo \"%\"\n", "/tmp/crontab.Ab12/crontab")
        requests += [crontab, ControlRequest(command: .crontabList), ControlRequest(command: .crontabRemove)]
        return requests
    }

    @Test func requestsAreWrittenAsJSONEncoderWritesThemAndReadBack() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for request in Self.requests {
            let line = request.jsonLine
            #expect(line == Array(try encoder.encode(request)) + [UInt8(ascii: "\n")], "\(String(decoding: line, as: UTF8.self))")
            #expect(try ControlRequest(jsonLine: Array(line.dropLast())) == request)
            #expect(try JSONDecoder().decode(ControlRequest.self, from: Data(line)) == request)
        }
    }

    /// What jobd read with `JSONDecoder` it reads the same by hand: an older jobctl's line (its
    /// `/` escaped), other key orders and layouts, nulls, unknown keys.
    @Test func otherSpellingsReadAsJSONDecoderReadsThem() throws {
        let spellings = [
            #"{"command":"status","job":"a\/b","version":1}"#,
            #"{"version":1,"command":"run","job":"backup","wait":true,"output":true,"followRetries":true}"#,
            " { \"wait\" : null , \"command\" : \"watch-reload\" ,\n\"version\" : 1, \"job\": null, \"brief\": null, \"later\": {\"x\": [1.5e3]} } ",
            #"{"command":"list","version":2,"brief":false}"#,
            #"{"command":"stop","version":1,"job":"\u00e9\ud83d\ude00"}"#,
        ]
        for spelling in spellings {
            let bytes = Array(spelling.utf8)
            #expect(try ControlRequest(jsonLine: bytes) == (try JSONDecoder().decode(ControlRequest.self, from: Data(bytes))), "\(spelling)")
        }
    }

    /// What jobd refuses as a malformed request (`bad-request`), as it did with `JSONDecoder`.
    @Test func malformedRequestsAreErrors() {
        let wrong = [
            "", "null", "[]", #"{"command":"status"}"#, #"{"version":1}"#, #"{"version":1,"command":"reboot"}"#,
            #"{"version":"1","command":"status"}"#, #"{"version":1,"command":null}"#, #"{"version":1,"command":"run","wait":"yes"}"#,
            #"{"version":1,"command":"run","job":7}"#, #"{"version":1,"command":"status"} {}"#, #"{"version":1,"command":"status""#,
            #"{"version":1,"command":"status","version":1}"#, #"{"version":99999999999999999999,"command":"status"}"#,
        ]
        for text in wrong {
            #expect(throws: ControlError.self, "\(text)") { try ControlRequest(jsonLine: Array(text.utf8)) }
            #expect((try? JSONDecoder().decode(ControlRequest.self, from: Data(text.utf8))) == nil || text.contains(#""version":1,"command":"status","version""#),
                    "JSONDecoder read \(text)")
        }
    }
}

/// `kept` became a count (issue 30): the reply of a reload carries `keptCount`, and an empty
/// `kept` for the jobctl before it, which requires an array there. Both directions, with the
/// bytes each side writes spelled out.
struct ReloadKeptCompatibilityTests {
    /// The reload report as the jobctl before the count declared it, read with `JSONDecoder` as
    /// it read it.
    struct OlderReloadReport: Decodable {
        var sequence: UInt64
        var accepted: Bool
        var generation: UInt64
        var added: [String]
        var changed: [String]
        var removed: [String]
        var kept: [String]
        var errors: [String]
        var finishedRealtimeUSec: Int64?
    }

    struct OlderResponse: Decodable {
        var type: String
        var version: Int
        var reload: OlderReloadReport?
    }

    static let newReply = #"{"reload":{"accepted":true,"added":["new"],"changed":[],"errors":[],"finishedRealtimeUSec":1763800000000000,"generation":3,"kept":[],"keptCount":9998,"removed":["old"],"sequence":2},"type":"reload-result","version":1}"#

    @Test func theNewReplyIsWrittenSo() throws {
        let report = ReloadReport(
            sequence: 2, accepted: true, generation: 3, added: ["new"], removed: ["old"], kept: 9_998,
            finishedRealtimeUSec: 1_763_800_000_000_000)
        let line = ControlResponse(type: .reloadResult, reload: report).jsonLine
        #expect(String(decoding: line, as: UTF8.self) == Self.newReply + "\n")
        #expect(try ControlResponse(jsonLine: Array(Self.newReply.utf8)).reload == report)
    }

    @Test func anOlderJobctlReadsTheNewReply() throws {
        let older = try JSONDecoder().decode(OlderResponse.self, from: Data(Self.newReply.utf8))
        #expect(older.type == "reload-result" && older.version == 1)
        let reload = try #require(older.reload)
        #expect(reload.accepted && reload.generation == 3 && reload.added == ["new"] && reload.removed == ["old"])
        #expect(reload.kept == [])
    }

    @Test func theNewJobctlReadsAnOlderJobdsReply() throws {
        let older = #"{"reload":{"accepted":false,"added":[],"changed":["a"],"errors":["\/etc\/jobd\/jobs.d\/x.job:1: error: bad"],"finishedRealtimeUSec":1763800000000000,"generation":4,"kept":["b","c","d"],"removed":[],"sequence":7},"type":"reload-result","version":1}"#
        let report = try #require(try ControlResponse(jsonLine: Array(older.utf8)).reload)
        #expect(report == ReloadReport(
            sequence: 7, accepted: false, generation: 4, changed: ["a"], kept: 3, errors: ["/etc/jobd/jobs.d/x.job:1: error: bad"],
            finishedRealtimeUSec: 1_763_800_000_000_000))
        // The daemon's status carries the last reload too (`jobctl status`).
        let status = #"{"daemon":{"armedTimers":1,"generation":4,"instance":"i","jobs":3,"lastReload":{"accepted":true,"added":[],"changed":[],"errors":[],"generation":4,"kept":["a","b"],"removed":[],"sequence":1},"leakedOwners":0,"liveOwners":3,"liveTimers":1,"pid":9,"retiredOwnersAlive":0,"runningJobs":0,"startedRealtimeUSec":5},"type":"status","version":1}"#
        #expect(try ControlResponse(jsonLine: Array(status.utf8)).daemon?.lastReload?.kept == 2)
    }
}
