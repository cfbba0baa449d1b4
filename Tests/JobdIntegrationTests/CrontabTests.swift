import Foundation
import JobdTestKit
import Testing

/// Issue 38: crontab(1) in front of jobd, tried by real unprivileged accounts the test creates:
/// the crontab link to the built jobd, run as the user (setpriv), asks jobd over its control socket,
/// and jobd writes cron's spool (under `$JOBD_CRON_ROOT`) in Debian's format: the user's file,
/// group crontab, mode 0600, Debian's header, in a spool of root:crontab 1730. cron.allow and
/// cron.deny refuse as Debian's crontab does; `-u` is root's; a link in the spool is never followed.
@Suite(.serialized) struct CrontabTests {
    typealias TestUser = UserJobsTests.TestUser

    /// jobd with a cron root of its own, the `crontab` link, and two users.
    final class Setup {
        let config: TemporaryConfiguration
        let base: String
        let cronRoot: String
        var spool: String { cronRoot + "/var/spool/cron/crontabs" }
        var runtime: String { config.path + "/run" }
        let daemon: DaemonProcess
        let crontab: String
        let alice: TestUser
        let bob: TestUser
        /// Group crontab, made for the test when the machine has none (and removed after).
        let group: gid_t
        let madeGroup: Bool

        init() throws {
            try Requirement.root("to create users and write cron's spool for them")
            try Requirement.tools("/usr/sbin/useradd", "/usr/sbin/userdel", "/usr/sbin/groupadd", "/usr/bin/setpriv", for: "real unprivileged users")
            madeGroup = getgrnam("crontab") == nil
            if madeGroup { _ = try CapturedProcess.run("/usr/sbin/groupadd", ["--system", "crontab"]) }
            group = try #require(getgrnam("crontab")).pointee.gr_gid
            config = try TemporaryConfiguration()
            base = NSTemporaryDirectory() + "jobd-crontab-" + UUID().uuidString
            cronRoot = base + "/root"
            try FileManager.default.createDirectory(atPath: cronRoot + "/etc", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: base + "/bin", withIntermediateDirectories: true)
            chmod(base, 0o755)
            chmod(base + "/bin", 0o755)
            crontab = base + "/bin/crontab"
            try FileManager.default.createSymbolicLink(atPath: crontab, withDestinationPath: DaemonProcess.productsDirectory + "/jobd")
            let suffix = String(UInt32.random(in: 0 ... .max), radix: 36)
            alice = try TestUser("jobdca" + suffix, in: base)
            bob = try TestUser("jobdcb" + suffix, in: base)
            let environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "STATE_DIRECTORY": base + "/state", "JOBD_CRON_ROOT": cronRoot]
            daemon = try DaemonProcess(
                absolutePath: DaemonProcess.productsDirectory + "/jobd",
                arguments: ["--config-dir", config.path, "--runtime-dir", config.path + "/run", "--spool-dir", base + "/spool"],
                environment: environment)
            try daemon.waitForEvent("daemon.ready")
        }

        /// Runs `crontab ARGUMENTS` as `user` (root without one) through `/bin/sh`, with `input` on
        /// its standard input and `editing` written over the copy by `EDITOR`; exit status and
        /// stdout and stderr together.
        func run(_ arguments: String, as user: TestUser? = nil, input: String = "", editing text: String? = nil,
                 runtime: String? = nil) throws -> (Int32, String) {
            let inputFile = base + "/input-" + UUID().uuidString
            try input.write(toFile: inputFile, atomically: true, encoding: .utf8)
            chmod(inputFile, 0o644)
            var environment = ["PATH": "/usr/bin:/bin", "RUNTIME_DIRECTORY": runtime ?? self.runtime, "EDITOR": "/bin/true",
                               "TMPDIR": user?.directory ?? base]
            if let text { environment.merge(try ScriptedEditor.environment(writing: text, in: base)) { $1 } }
            let script = "\"\(crontab)\" \(arguments) < \"\(inputFile)\" 2>&1"
            let process = if let user {
                try CapturedProcess.run("/usr/bin/setpriv", ["--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "/bin/sh", "-c", script],
                                        environment: environment)
            } else {
                try CapturedProcess.run("/bin/sh", ["-c", script], environment: environment)
            }
            return (process.status, process.standardOutput + process.standardError)
        }

        /// A crontab file `user` may read.
        func file(_ text: String, of user: TestUser) throws -> String {
            let path = user.directory + "/mycron-" + UUID().uuidString
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            chown(path, user.uid, user.gid)
            return path
        }

        func status(_ path: String) -> stat? {
            var status = stat()
            return lstat(path, &status) == 0 ? status : nil
        }

        deinit {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
            try? FileManager.default.removeItem(atPath: base)
            if madeGroup { _ = try? CapturedProcess.run("/usr/sbin/groupdel", ["crontab"]) }
        }
    }

    static let body = "# backups\nMAILTO=\"\"\n*/5 * * * * echo \"$HOME\" >/dev/null\n"

    @Test func aUserInstallsListsAndRemovesTheirCrontabInDebiansFormat() throws {
        let setup = try Setup()
        let alice = setup.alice
        let (installed, said) = try setup.run("\"\(try setup.file(Self.body, of: alice))\"", as: alice)
        #expect(installed == 0, "\(said)")
        let path = setup.spool + "/" + alice.name
        let file = try #require(setup.status(path), "no \(path)")
        #expect(file.st_uid == alice.uid && file.st_gid == setup.group && file.st_mode & 0o7777 == 0o600 && file.st_mode & S_IFMT == S_IFREG)
        let spool = try #require(setup.status(setup.spool))
        #expect(spool.st_uid == 0 && spool.st_gid == setup.group && spool.st_mode & 0o7777 == 0o1730)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "# DO NOT EDIT THIS FILE - edit the master and reinstall.")
        #expect(lines.count > 2 && lines[1].hasPrefix("# (\(alice.directory)/mycron-") && lines[1].contains(" installed on "))
        #expect(lines.count > 2 && lines[2] == "# (Cron version -- $Id: crontab.c,v 2.13 1994/01/17 03:20:37 vixie Exp $)")
        #expect(text.hasSuffix(Self.body))
        // -l shows what was installed, without the header; CRONTAB_NOHEADER=N shows it too.
        #expect(try setup.run("-l", as: alice) == (0, Self.body))
        #expect(try setup.run("-l", as: setup.bob) == (1, "no crontab for \(setup.bob.name)\n"))
        // A line that exits 1 in normal operation installs, warned about at its line (jobd.conf judges exit statuses).
        let (warned, warning) = try setup.run("-", as: alice, input: "@daily test -x /nonexistent && /nonexistent\n")
        #expect(warned == 0 && warning.hasPrefix("-:1: warning: ") && warning.contains("FailureResult=ignore"), "\(warning)")
        // From standard input, replacing the first.
        #expect(try setup.run("-", as: alice, input: "@daily /bin/true\n").0 == 0)
        #expect(try setup.run("-l", as: alice) == (0, "@daily /bin/true\n"))
        // -i asks first: a no keeps it, a yes removes it.
        let (kept, asked) = try setup.run("-i -r", as: alice, input: "n\n")
        #expect(kept == 0 && asked.contains("really delete \(alice.name)'s crontab? (y/n)") && setup.status(path) != nil, "\(asked)")
        #expect(try setup.run("-ri", as: alice, input: "y\n").0 == 0)
        #expect(setup.status(path) == nil)
        #expect(try setup.run("-r", as: alice) == (1, "no crontab for \(alice.name)\n"))
    }

    /// As Debian's cron logs `(alice) REPLACE (alice)` and `DELETE`: who ran crontab and whose
    /// crontab it was, by uid, and never the crontab's lines.
    @Test func installsAndRemovalsAreJournaledWithTheCallerAndTheOwner() throws {
        let setup = try Setup()
        let alice = setup.alice
        #expect(try setup.run("-", as: alice, input: "@daily echo secret-word\n").0 == 0)
        let replaced = try setup.daemon.waitForEvent("crontab.replace", fields: [
            "JOBD_CALLER_UID": "\(alice.uid)", "JOBD_CRONTAB_UID": "\(alice.uid)", "JOBD_CRONTAB_USER": alice.name,
        ])
        #expect(LogLine(setup.daemon.lines[replaced]).message == "(\(alice.name)) REPLACE (\(alice.name))")
        // Root removes it with -u: the caller is root, the owner alice.
        #expect(try setup.run("-u \(alice.name) -r").0 == 0)
        let deleted = try setup.daemon.waitForEvent("crontab.delete", fields: [
            "JOBD_CALLER_UID": "0", "JOBD_CRONTAB_UID": "\(alice.uid)", "JOBD_CRONTAB_USER": alice.name,
        ])
        #expect(LogLine(setup.daemon.lines[deleted]).message == "(root) DELETE (\(alice.name))")
        let journaled = setup.daemon.events("crontab.replace") + setup.daemon.events("crontab.delete")
        #expect(!journaled.contains { $0.text.contains("secret-word") }, "a crontab's lines reached the journal")
        // A refused install is no REPLACE.
        #expect(try setup.run("-", as: setup.bob, input: "61 * * * * true\n").0 == 1)
        #expect(setup.daemon.events("crontab.replace").count == 1)
    }

    @Test func anEditIsCheckedWithItsLinesBeforeItIsInstalled() throws {
        let setup = try Setup()
        let alice = setup.alice
        let path = setup.spool + "/" + alice.name
        // A broken edit: the line is named, nothing is installed, the retry is offered; no keeps the copy.
        let (refused, said) = try setup.run("-e", as: alice, input: "n\n", editing: "61 * * * * /bin/true\n")
        #expect(refused == 1, "\(said)")
        #expect(said.contains("no crontab for \(alice.name) - using an empty one"))
        #expect(said.range(of: #"crontab\.[A-Za-z0-9]{6}/crontab:1: error: '61 \* \* \* \*' is not a schedule"#, options: .regularExpression) != nil, "\(said)")
        #expect(said.contains("errors in crontab file, can't install.") && said.contains("Do you want to retry the same edit? (y/n)"))
        #expect(said.contains("crontab: edits left in \(alice.directory)/crontab."), "\(said)")
        #expect(setup.status(path) == nil)
        // A good edit is installed, its header naming the copy.
        let (edited, output) = try setup.run("-e", as: alice, editing: Self.body)
        #expect(edited == 0 && output.contains("crontab: installing new crontab"), "\(output)")
        #expect(try setup.run("-l", as: alice) == (0, Self.body))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("# (\(alice.directory)/crontab."))
        // The editor leaves it as it was: nothing changes.
        let (unchanged, same) = try setup.run("-e", as: alice)
        #expect(unchanged == 0 && same.contains("No modification made"), "\(same)")
    }

    @Test func cronAllowAndCronDenyRefuseAsDebiansCrontab() throws {
        let setup = try Setup()
        let (alice, bob) = (setup.alice, setup.bob)
        let deny = setup.cronRoot + "/etc/cron.deny", allow = setup.cronRoot + "/etc/cron.allow"
        try "\(bob.name)\n".write(toFile: deny, atomically: true, encoding: .utf8)
        let (denied, said) = try setup.run("-", as: bob, input: "@daily /bin/true\n")
        #expect(denied == 1 && said.hasPrefix("You (\(bob.name)) are not allowed to use this program (crontab)\nSee crontab(1)"), "\(said)")
        #expect(setup.status(setup.spool + "/" + bob.name) == nil)
        #expect(try setup.run("-", as: alice, input: "@daily /bin/true\n").0 == 0)
        // Root is told, in Debian's words, and installs nothing for bob either.
        let (rootDenied, rootSaid) = try setup.run("-u \(bob.name) -", input: "@daily /bin/true\n")
        #expect(rootDenied == 1 && rootSaid.contains("The user \(bob.name) cannot use this program (crontab)"), "\(rootSaid)")
        // cron.allow wins: it lists bob alone, so alice is refused even her own listing.
        try "\(bob.name)\n".write(toFile: allow, atomically: true, encoding: .utf8)
        #expect(try setup.run("-l", as: bob) == (1, "no crontab for \(bob.name)\n"))
        let (allowRefused, allowSaid) = try setup.run("-l", as: alice)
        #expect(allowRefused == 1 && allowSaid.contains("You (\(alice.name)) are not allowed"), "\(allowSaid)")
    }

    @Test func onlyRootNamesAnotherUser() throws {
        let setup = try Setup()
        let (alice, bob) = (setup.alice, setup.bob)
        #expect(try setup.run("-", as: bob, input: "@daily /bin/true\n").0 == 0)
        for arguments in ["-u \(bob.name) -l", "-u \(bob.name) -r", "-u \(bob.name) -"] {
            let (status, said) = try setup.run(arguments, as: alice, input: "@hourly /bin/true\n")
            #expect(status == 1 && said == "must be privileged to use -u\n", "\(arguments): \(said)")
        }
        #expect(try setup.run("-l", as: bob) == (0, "@daily /bin/true\n"), "bob's crontab is as he left it")
        // Naming oneself is allowed, as with Debian's.
        #expect(try setup.run("-u \(alice.name) -l", as: alice) == (1, "no crontab for \(alice.name)\n"))
        // Root lists and installs another's, which is then theirs.
        #expect(try setup.run("-u \(bob.name) -l") == (0, "@daily /bin/true\n"))
        #expect(try setup.run("-u \(alice.name) -", input: "@weekly /bin/true\n").0 == 0)
        #expect(setup.status(setup.spool + "/" + alice.name)?.st_uid == alice.uid)
        #expect(try setup.run("-l", as: alice) == (0, "@weekly /bin/true\n"))
    }

    @Test func aLinkInTheSpoolIsNeitherReadNorWrittenThrough() throws {
        let setup = try Setup()
        let alice = setup.alice
        // The spool exists once someone has a crontab; then root's secret is linked where alice's goes.
        #expect(try setup.run("-", as: setup.bob, input: "@daily /bin/true\n").0 == 0)
        let secret = setup.base + "/secret"
        try "root's secret\n".write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o600)
        try FileManager.default.createSymbolicLink(atPath: setup.spool + "/" + alice.name, withDestinationPath: secret)
        let (listed, shown) = try setup.run("-l", as: alice)
        #expect(listed == 1 && !shown.contains("secret"), "\(shown)")
        #expect(try setup.run("-", as: alice, input: "@daily /bin/true\n").0 == 0)
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "root's secret\n")
        let file = try #require(setup.status(setup.spool + "/" + alice.name))
        #expect(file.st_mode & S_IFMT == S_IFREG && file.st_uid == alice.uid, "the link was replaced, not followed")
    }

    @Test func withoutJobdCrontabSaysJobdMustRun() throws {
        let setup = try Setup()
        let empty = setup.base + "/no-daemon"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let (status, said) = try setup.run("-l", as: setup.alice, runtime: empty)
        #expect(status == 1 && said.contains("jobd does not answer") && said.contains("systemctl start jobd"), "\(said)")
    }
}
