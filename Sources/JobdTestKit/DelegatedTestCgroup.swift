import Foundation
package import Testing

/// A cgroup v2 directory delegated as systemd delegates one to a unit with `Delegate=yes` (the
/// `trusted.delegate` xattr), for a jobd that a test starts inside it: jobd then tracks its runs by
/// cgroup as under the real unit. Needs root and a writable cgroup v2 hierarchy (on a hybrid
/// system, `/sys/fs/cgroup/unified`).
package final class DelegatedTestCgroup {
    package let directory: String
    /// jobd's cgroups on the v1 hierarchies of the controllers the unified hierarchy lacks (a hybrid
    /// host, as this project's test machines are, binds pids, memory, cpu and blkio there), by
    /// controller: as systemd makes them for a unit with `Delegate=yes`. Each is made below the test
    /// process's own cgroup on that hierarchy.
    package let legacy: [String: String]
    /// The one on the pids controller's v1 hierarchy.
    package var legacyPids: String? { legacy["pids"] }

    /// Why the machine cannot give a test a delegated cgroup, or nil.
    private static func mount() -> Result<String, Failure> {
        guard getuid() == 0 else { return .failure(Failure(description: "needs root to create a cgroup")) }
        let mountInfo = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        for line in mountInfo.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count, fields[dash + 1] == "cgroup2", fields.count > 4 else { continue }
            return .success(String(fields[4]))
        }
        return .failure(Failure(description: "no cgroup v2 hierarchy is mounted"))
    }

    /// A new delegated cgroup; when the machine has none to give, cancels the test with a loud
    /// message on stderr, or, when `CI=true`, throws, so the test fails.
    package init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let made = Self.mount().flatMap { mount -> Result<String, Failure> in
            let directory = mount + "/jobd-test-" + UUID().uuidString
            guard mkdir(directory, 0o755) == 0 else {
                return .failure(Failure(description: "cannot create \(directory): \(String(cString: strerror(errno)))"))
            }
            guard Self.setDelegated(directory) else {
                let reason = String(cString: strerror(errno))
                rmdir(directory)
                return .failure(Failure(description: "cannot mark \(directory) delegated: \(reason)"))
            }
            return .success(directory)
        }
        switch made {
        case .success(let directory):
            self.directory = directory
            legacy = Self.makeLegacy(name: String(directory.split(separator: "/").last!), unified: directory)
        case .failure(let failure):
            try Requirement.unmet("DELEGATED CGROUP TEST NOT RUN: \(failure.description)", sourceLocation: sourceLocation)
            throw failure
        }
    }

    /// A cgroup of the same name on the v1 hierarchy of each controller the unified one lacks
    /// (`/sys/fs/cgroup/CONTROLLER` below the test's own cgroup there), where that hierarchy exists.
    private static func makeLegacy(name: String, unified: String) -> [String: String] {
        let root = String(unified[..<unified.lastIndex(of: "/")!])
        let controllers = ((try? String(contentsOfFile: root + "/cgroup.controllers", encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace)
        let own = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        var made: [String: String] = [:]
        for controller in ["pids", "memory", "cpu", "blkio"] where !controllers.contains(Substring(controller == "blkio" ? "io" : controller)) {
            // `4:memory:/some/path` or `1:cpu,cpuacct:/`: the test's own cgroup on that hierarchy.
            guard let path = Self.ownPath(own, controller: controller), let mount = Self.legacyMount(controller) else { continue }
            let directory = mount + (path == "/" ? "" : path) + "/" + name
            guard mkdir(directory, 0o755) == 0 else { continue }
            made[controller] = directory
            // A new v1 cpu cgroup gets no real-time budget (with RT_GROUP_SCHED): some of the
            // root's, so that the daemon and a run without cpu keys may use SCHED_FIFO as on the host.
            if controller == "cpu", let file = fopen(directory + "/cpu.rt_runtime_us", "w") {
                fputs("50000", file)
                fclose(file)
            }
        }
        return made
    }

    /// The path of `/proc/self/cgroup`'s line for `controller` (`4:memory:/some/path`).
    private static func ownPath(_ procSelfCgroup: String, controller: String) -> String? {
        for line in procSelfCgroup.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if fields.count == 3, fields[1].split(separator: ",").contains(Substring(controller)) { return String(fields[2]) }
        }
        return nil
    }

    /// Where `controller`'s v1 hierarchy is mounted, if it is (cpu may share one with cpuacct).
    private static func legacyMount(_ controller: String) -> String? {
        let candidates = controller == "cpu" ? ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] : ["/sys/fs/cgroup/" + controller]
        let file = controller == "cpu" ? "/cpu.shares" : "/cgroup.procs"
        return candidates.first { access($0 + file, F_OK) == 0 }
    }

    /// The cgroup where jobd's task limit is (`pids.max`: the unit's `TasksMax=`), or nil when the
    /// machine has no pids controller to give.
    package var pidsDirectory: String? {
        let controllers = (try? String(contentsOfFile: directory + "/cgroup.controllers", encoding: .utf8)) ?? ""
        return controllers.split(whereSeparator: \.isWhitespace).contains("pids") ? directory : legacyPids
    }

    /// Sets `trusted.delegate=1`, as systemd marks a delegated cgroup. setxattr(2) is looked up at
    /// run time: Swift's Glibc module leaves it out, and CXattr belongs to JobdRunner alone.
    private static func setDelegated(_ directory: String) -> Bool {
        typealias SetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer, Int, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr") else { return false }
        let setxattr = unsafeBitCast(symbol, to: SetXattr.self)
        return setxattr(directory, "trusted.delegate", "1", 1, 0) == 0
    }

    /// The words that start `executable` inside this cgroup: a shell enters it and execs the program,
    /// so that the program is the cgroup's only process, as a unit's main process is.
    package func launch(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        let entering = legacy.values.sorted().map { "echo 0 > \($0)/cgroup.procs && " }.joined()
        return ("/bin/sh", ["-c", entering + "echo 0 > \"$0/cgroup.procs\" && exec \"$@\"", directory, executable] + arguments)
    }

    /// Removes the cgroup and what jobd made in it (`supervisor`, `runs/run-…`); call once jobd
    /// has exited.
    deinit {
        for top in [directory] + legacy.values.sorted() { Self.removeTree(top) }
    }

    private static func removeTree(_ directory: String) {
        let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for child in children {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + child, isDirectory: &isDirectory), isDirectory.boolValue {
                removeTree(directory + "/" + child)
            }
        }
        rmdir(directory)
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }
}
