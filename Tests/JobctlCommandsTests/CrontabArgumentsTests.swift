import JobctlCommands
import Testing

/// Issue 38: crontab's arguments read as Debian's crontab reads them (getopt "u:leri").
struct CrontabArgumentsTests {
    typealias Arguments = CrontabArguments

    static let accepted: [([String], Arguments)] = [
        ([], Arguments(operation: .replace("-"))),
        (["-"], Arguments(operation: .replace("-"))),
        (["file"], Arguments(operation: .replace("file"))),
        (["-l"], Arguments(operation: .list)),
        (["-e"], Arguments(operation: .edit)),
        (["-r", "-i"], Arguments(operation: .remove, asksBeforeRemoving: true)),
        (["-ir"], Arguments(operation: .remove, asksBeforeRemoving: true)),
        (["-u", "alice", "-l"], Arguments(operation: .list, user: "alice")),
        (["-ualice", "-e"], Arguments(operation: .edit, user: "alice")),
        (["-lu", "alice"], Arguments(operation: .list, user: "alice")),
        // glibc's getopt takes options after operands too.
        (["file", "-u", "alice"], Arguments(operation: .replace("file"), user: "alice")),
        (["--", "-l"], Arguments(operation: .replace("-l"))),
        // Debian installs the first file and ignores the rest.
        (["a", "b"], Arguments(operation: .replace("a"))),
    ]

    @Test func readsWhatDebiansCrontabReads() throws {
        for (words, expected) in Self.accepted {
            #expect(try Arguments.parse(words).get() == expected, "\(words)")
        }
    }

    static let refused: [([String], String)] = [
        (["-l", "-r"], "only one operation permitted"),
        (["-le"], "only one operation permitted"),
        (["-l", "file"], "no arguments permitted after this option"),
        (["-i"], "file name must be specified for replace"),
        (["-u"], "option requires an argument -- 'u'"),
        (["-x"], "unrecognized option -- 'x'"),
        (["--help"], "unrecognized option -- '-'"),
    ]

    @Test func refusesWithDebiansWords() {
        for (words, message) in Self.refused {
            guard case .failure(let error) = Arguments.parse(words) else {
                Issue.record("\(words) accepted")
                continue
            }
            #expect(error.message == message, "\(words)")
        }
    }
}
