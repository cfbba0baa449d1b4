import Foundation
import JobdTestKit
import Testing

/// Issue 37: jobd-cgexec looked a user's `ReadOnlyPaths=` and `InaccessiblePaths=` up as root, so
/// a run that failed ("No such file or directory") or succeeded (and showed the mount in its
/// /proc/self/mountinfo) told the user whether a path under a directory only root can read exists.
/// A real account tries it on a root-only directory with and without the child it names: what
/// the user sees must be the same in both worlds.
@Suite(.serialized) struct UserSandboxPathTests {
    @Test func aUsersSandboxPathsTellNothingOfWhatOnlyRootCanSee() throws {
        let setup = try UserJobsTests.Setup()
        let alice = setup.alice
        let secret = setup.base + "/secret"
        #expect(mkdir(secret, 0o700) == 0)
        let own = alice.directory + "/own"
        #expect(mkdir(own, 0o755) == 0)
        chown(own, alice.uid, alice.gid)
        let mountsOf = "/bin/sh -c 'echo mounts=$$(grep -c \(secret) /proc/self/mountinfo)'"
        let jobs = [
            "strict": "ReadOnlyPaths=\(secret)/child\nExecStart=/bin/true",
            "hidden": "InaccessiblePaths=\(secret)/child\nExecStart=/bin/true",
            "optional": "ReadOnlyPaths=-\(secret)/child\nInaccessiblePaths=-\(secret)/child/deeper\nExecStart=\(mountsOf)",
            // A path the user can reach is still made inaccessible: the keys keep working.
            "own": "InaccessiblePaths=\(own)\nExecStart=/bin/sh -c 'ls \(own) && echo visible || echo hidden'",
        ]
        for (name, keys) in jobs {
            let (saved, output) = try setup.jobctl(["--user", "edit", name], as: alice, editing: "[Job]\nOnStartupSec=1h\n\(keys)\n")
            #expect(saved == 0, "\(name): \(output)")
        }
        /// What alice sees of a run: its status and its output, run numbers aside (and as it is).
        func seen(_ job: String) throws -> (status: Int32, output: String, raw: String) {
            let (status, output) = try setup.jobctl(["--user", "run", job, "--wait"], as: alice)
            return (status, output.replacing(/[0-9]+/, with: "N"), output)
        }
        var worlds: [[String: (status: Int32, output: String, raw: String)]] = []
        for childExists in [false, true] {
            if childExists { #expect(mkdir(secret + "/child", 0o755) == 0) }
            worlds.append(try Dictionary(uniqueKeysWithValues: jobs.keys.map { ($0, try seen($0)) }))
        }
        let (absent, present) = (worlds[0], worlds[1])
        for job in ["strict", "hidden", "optional"] {
            let (before, after) = (try #require(absent[job]), try #require(present[job]))
            #expect(before.status == after.status && before.output == after.output,
                    "\(job): without the child: \(before.status) \(before.raw); with it: \(after.status) \(after.raw)")
        }
        for job in ["strict", "hidden"] {
            let run = try #require(present[job])
            #expect(run.status != 0 && run.raw.contains("no such file or directory, or not accessible to the job's user"), "\(job): \(run.raw)")
        }
        let optional = try #require(present["optional"])
        #expect(optional.status == 0 && optional.raw.contains("mounts=0"), "\(optional.raw)")
        let reachable = try #require(present["own"])
        #expect(reachable.status == 0 && reachable.raw.contains("hidden") && !reachable.raw.contains("visible"), "\(reachable.raw)")
    }
}
