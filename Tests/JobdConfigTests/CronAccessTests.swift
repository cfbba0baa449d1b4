import JobdConfig
import JobdPolicy
import Testing

/// Issue 38: who may use crontab, as Debian's cron decides it from /etc/cron.allow and
/// /etc/cron.deny (its misc.c `allowed()` and `in_file()`), without files or processes.
struct CronAccessTests {
    struct Row: CustomStringConvertible {
        var allow: CronAccess.List
        var deny: CronAccess.List
        var user: String
        var uid: UInt32 = 1_000
        var allowed: Bool
        var description: String { "allow \(allow), deny \(deny), \(user) (\(uid))" }
    }

    static let rows: [Row] = [
        // Neither file: everyone (Debian is built without ALLOW_ONLY_ROOT).
        Row(allow: .absent, deny: .absent, user: "alice", allowed: true),
        // cron.allow wins: only those it lists, whatever cron.deny says.
        Row(allow: .lines(["alice"]), deny: .lines(["alice"]), user: "alice", allowed: true),
        Row(allow: .lines(["alice"]), deny: .absent, user: "bob", allowed: false),
        Row(allow: .lines([]), deny: .absent, user: "alice", allowed: false),
        // Without cron.allow, cron.deny refuses those it lists only.
        Row(allow: .absent, deny: .lines(["bob"]), user: "bob", allowed: false),
        Row(allow: .absent, deny: .lines(["bob"]), user: "alice", allowed: true),
        // A line is the name exactly: no trimming, no comments, no prefix match.
        Row(allow: .absent, deny: .lines(["bob ", "#bob", "bobby", "Bob"]), user: "bob", allowed: true),
        Row(allow: .lines([" alice", "alice\t"]), deny: .absent, user: "alice", allowed: false),
        // Root always may, even when a list names root or leaves it out.
        Row(allow: .lines(["alice"]), deny: .lines(["root"]), user: "root", uid: 0, allowed: true),
        Row(allow: .absent, deny: .lines(["root"]), user: "root", uid: 0, allowed: true),
        // A list that cannot be read refuses: jobd, as root, could read any but a broken one.
        Row(allow: .unreadable("EIO"), deny: .absent, user: "alice", allowed: false),
        Row(allow: .absent, deny: .unreadable("EIO"), user: "alice", allowed: false),
    ]

    @Test(arguments: rows) func decidesAsDebiansCron(_ row: Row) {
        let refusal = CronAccess(allow: row.allow, deny: row.deny).refusal(of: row.user, uid: row.uid)
        #expect((refusal == nil) == row.allowed, "\(refusal ?? "allowed")")
        if let refusal { #expect(refusal.hasPrefix("You (\(row.user)) are not allowed to use this program (crontab)")) }
    }

    @Test func aListFileIsCutAtNewlinesOnly() {
        #expect(CronAccess.lines(of: "alice\nbob \n\n#carol\n") == ["alice", "bob ", "", "#carol"])
        // A last line without its newline names its user too.
        #expect(CronAccess.lines(of: "alice\nbob") == ["alice", "bob"])
        #expect(CronAccess.lines(of: "") == [])
    }
}
