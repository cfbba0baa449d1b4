import JobdImport
import Testing

/// Whose account a user crontab's jobs run as without `--user`: the crontab's own, never root's
/// in place of an unknown owner (issue 26).
struct CrontabAccountTests {
    typealias Account = CrontabAccount.Account
    static let root = Account(uid: 0, name: "root")
    static let alice = Account(uid: 1000, name: "alice")
    static let bob = Account(uid: 1001, name: "bob")

    static func file(_ path: String, owner: Account?, uid: UInt32? = nil, spool: String? = nil, spoolAccount: Account? = nil)
        -> CrontabAccount.Source {
        .file(path: path, ownerUID: uid ?? owner?.uid ?? 0, owner: owner, spoolName: spool, spoolAccount: spoolAccount)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var explicitUser: String?
        var source: CrontabAccount.Source
        /// The user, or `nil` for a refusal.
        var user: String?
        /// Words the note or the refusal must hold.
        var says: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "stdin as root", source: .standardInput(invoker: root), user: nil, says: ["--user NAME", "--user root"]),
        Case(name: "stdin as root, --user root", explicitUser: "root", source: .standardInput(invoker: root), user: "root"),
        Case(name: "stdin as root, --user alice", explicitUser: "alice", source: .standardInput(invoker: root), user: "alice"),
        Case(name: "stdin as alice", source: .standardInput(invoker: alice), user: "alice"),
        Case(name: "root's copy of alice's crontab", source: file("/tmp/alice.cron", owner: root), user: nil,
             says: ["owned by root", "--user NAME"]),
        Case(name: "root's file, --user root", explicitUser: "root", source: file("/tmp/x", owner: root), user: "root"),
        Case(name: "alice's file", source: file("/home/alice/cron", owner: alice), user: "alice"),
        Case(name: "alice's file, --user root", explicitUser: "root", source: file("/home/alice/cron", owner: alice), user: "root",
             says: ["owned by alice", "as root"]),
        Case(name: "a file of an unknown uid", source: file("/tmp/x", owner: nil, uid: 4242), user: nil, says: ["uid 4242"]),
        Case(name: "spool, owned by its user", source: file("/var/spool/cron/crontabs/alice", owner: alice, spool: "alice", spoolAccount: alice),
             user: "alice"),
        Case(name: "spool, owned by root", source: file("/var/spool/cron/crontabs/alice", owner: root, spool: "alice", spoolAccount: alice),
             user: "alice"),
        Case(name: "spool, owned by another user", source: file("/var/spool/cron/crontabs/alice", owner: bob, spool: "alice", spoolAccount: alice),
             user: nil, says: ["owned by bob", "WRONG FILE OWNER"]),
        Case(name: "spool, --user bob", explicitUser: "bob",
             source: file("/var/spool/cron/crontabs/alice", owner: alice, spool: "alice", spoolAccount: alice),
             user: "bob", says: ["crontab of alice", "as bob"]),
        Case(name: "spool of no account", source: file("/var/spool/cron/crontabs/ghost", owner: root, spool: "ghost"), user: nil,
             says: ["'ghost'", "no account"]),
        Case(name: "root's spool crontab", source: file("/var/spool/cron/crontabs/root", owner: root, spool: "root", spoolAccount: root),
             user: "root"),
    ]

    @Test(arguments: cases) func theAccountIsTheCrontabsOwn(_ testCase: Case) {
        let decision = CrontabAccount.decide(explicitUser: testCase.explicitUser, source: testCase.source)
        switch decision {
        case .user(let user, let note):
            #expect(user == testCase.user, "\(decision)")
            for words in testCase.says { #expect(note?.contains(words) == true, "\(decision)") }
            if testCase.says.isEmpty { #expect(note == nil, "\(decision)") }
        case .refused(let reason):
            #expect(testCase.user == nil, "\(decision)")
            for words in testCase.says { #expect(reason.contains(words), "\(decision)") }
        }
    }
}
