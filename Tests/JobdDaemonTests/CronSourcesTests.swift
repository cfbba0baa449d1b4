@testable import JobdDaemon
import Glibc
import JobdImport
import Testing

/// What jobd reads of cron's files, for CronTable to judge: which files it finds, in cron's order,
/// and what stat says of each, a user's crontab never followed through a link (issue 38).
@Suite struct CronSourcesTests {
    final class Tree {
        let root: String
        init() {
            var template = Array("/tmp/jobd-cron-sources-XXXXXX".utf8CString)
            root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            for directory in ["/etc", "/etc/cron.d", "/var", "/var/spool", "/var/spool/cron", "/var/spool/cron/crontabs"] {
                mkdir(root + directory, 0o755)
            }
        }
        deinit {
            for path in ["/etc/crontab", "/etc/cron.d/sysstat", "/etc/cron.d/sysstat.dpkg-old", "/etc/cron.d/linked",
                         "/var/spool/cron/crontabs/root", "/var/spool/cron/crontabs/nobody", "/var/spool/cron/crontabs/tmp.X"] {
                unlink(root + path)
            }
            for directory in ["/var/spool/cron/crontabs", "/var/spool/cron", "/var/spool", "/var", "/etc/cron.d", "/etc", ""] {
                rmdir(root + directory)
            }
        }
        func write(_ path: String, _ text: String, mode: mode_t) {
            let fd = open(root + path, O_WRONLY | O_CREAT | O_TRUNC, mode)
            _ = text.utf8CString.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
            fchmod(fd, mode)
            close(fd)
        }
    }

    @Test func theFilesAreCronsInItsOrderWithWhatStatSaysOfThem() throws {
        let tree = Tree()
        tree.write("/etc/crontab", "17 * * * * root true\n", mode: 0o644)
        tree.write("/etc/cron.d/sysstat", "* * * * * root true\n", mode: 0o664)
        tree.write("/etc/cron.d/sysstat.dpkg-old", "* * * * * root true\n", mode: 0o644)
        symlink(tree.root + "/etc/crontab", tree.root + "/etc/cron.d/linked")
        tree.write("/var/spool/cron/crontabs/root", "* * * * * true\n", mode: 0o600)
        tree.write("/var/spool/cron/crontabs/tmp.X", "* * * * * true\n", mode: 0o600)
        symlink(tree.root + "/var/spool/cron/crontabs/root", tree.root + "/var/spool/cron/crontabs/nobody")
        let sources = CronSources(options: DaemonOptions(configDirectory: "/", runtimeDirectory: "/", stateDirectory: "/", instance: "test",
                                                         environment: ["JOBD_CRON_ROOT": tree.root + "/"]))
        let files = sources.files()
        #expect(files.map(\.kind) == [.systemCrontab, .cronDirectory(name: "linked"), .cronDirectory(name: "sysstat"),
                                      .spool(user: "nobody"), .spool(user: "root")])
        let uid = getuid()
        #expect(files[0].status == .init(uid: uid, permissions: 0o644))
        #expect(files[0].bytes == Array("17 * * * * root true\n".utf8))
        // A system file may be a link: the target is read, and the link's owner kept for the check.
        #expect(files[1].status == .init(uid: uid, permissions: 0o644, symlinkOwner: uid))
        #expect(files[1].bytes == files[0].bytes)
        #expect(files[2].status.permissions == 0o664)
        // A user's crontab is never followed: cron opens it O_NOFOLLOW, and refuses it.
        #expect(files[3].status.symlinkOwner == uid)
        #expect(files[3].bytes.isEmpty)
        #expect(files[3].refusal(userUID: 65534)?.hasPrefix("NOT A REGULAR FILE") == true)
        #expect(files[4].status == .init(uid: uid, permissions: 0o600))
    }
}
