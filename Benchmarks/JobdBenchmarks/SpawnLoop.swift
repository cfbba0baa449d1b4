import CSpawn
import Foundation
import Glibc
import JobdTestKit
import JobdTimers

/// The machine's limit for part 3: `posix_spawn` of `/bin/true` and `waitpid`, in a loop, with
/// nothing else around it.
enum SpawnLoop {
    /// Runs the loop for `seconds` on each of `threads` threads at once; returns spawns per second.
    static func spawnsPerSecond(seconds: Double, threads: Int = 1) -> Double {
        let deadline = MonotonicInstant.now() + .nanoseconds(Int64(seconds * 1e9))
        let total = Guarded(0)
        let group = DispatchGroup()
        let start = MonotonicInstant.now()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                let count = loop(until: deadline)
                total.withLock { $0 += count }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Double(MonotonicInstant.now().duration(since: start).nanosecondsSaturated) / 1e9
        return Double(total.withLock { $0 }) / elapsed
    }

    private static func loop(until deadline: MonotonicInstant) -> Int {
        let path = strdup("/bin/true")
        defer { free(path) }
        var argv: [UnsafeMutablePointer<CChar>?] = [path, nil]
        var count = 0
        while MonotonicInstant.now() < deadline {
            var pid: pid_t = 0
            guard let path, posix_spawn(&pid, path, nil, nil, &argv, environ) == 0 else { break }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            count += 1
        }
        return count
    }

    /// The same loop with the kernel's work for a cgroup a run, as jobd does it under its unit: a
    /// cgroup made in `cgroup` (and its twin on the pids controller's v1 hierarchy, with a
    /// `pids.max`, on a hybrid host), the child started straight in it by jobd's own spawn
    /// (`jobd_spawn`: `clone3` with `CLONE_INTO_CGROUP`, the twin entered before the exec), waited
    /// for, and the cgroups removed. What jobd does beyond it a run is jobd's own cost. Returns
    /// spawns per second, or nil if a step failed (with what failed on stderr). Without a cgroup,
    /// the loop of `jobd_spawn` alone: what jobd's spawn costs beyond `posix_spawn`.
    static func jobdSpawnsPerSecond(seconds: Double, in cgroup: DelegatedTestCgroup?) -> Double? {
        let deadline = MonotonicInstant.now() + .nanoseconds(Int64(seconds * 1e9))
        let start = MonotonicInstant.now()
        guard let count = jobdSpawnLoop(until: deadline, in: cgroup) else { return nil }
        return Double(count) / (Double(MonotonicInstant.now().duration(since: start).nanosecondsSaturated) / 1e9)
    }

    private static func jobdSpawnLoop(until deadline: MonotonicInstant, in cgroup: DelegatedTestCgroup?) -> Int? {
        let path = strdup("/bin/true")
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { free(path); close(null) }
        var argv: [UnsafeMutablePointer<CChar>?] = [path, nil]
        var count = 0
        let fail = { (step: String) -> Int? in
            FileHandle.standardError.write(Data("cgroup loop: \(step): \(String(cString: strerror(errno)))\n".utf8))
            return nil
        }
        while MonotonicInstant.now() < deadline {
            let name = "/run-\(count)"
            let unified = cgroup.map { $0.directory + name }
            let twin = cgroup?.legacyPids.map { $0 + name }
            if let unified { guard mkdir(unified, 0o755) == 0 else { return fail("mkdir \(unified)") } }
            if let twin {
                guard mkdir(twin, 0o755) == 0 else { return fail("mkdir \(twin)") }
                let limit = open(twin + "/pids.max", O_WRONLY | O_CLOEXEC)
                guard limit >= 0, write(limit, "4915", 4) == 4 else { return fail("\(twin)/pids.max") }
                close(limit)
            }
            let directory = unified.map { open($0, JOBD_O_PATH | O_DIRECTORY | O_CLOEXEC) } ?? -1
            guard unified == nil || directory >= 0 else { return fail("open \(unified ?? "")") }
            let twinPath = twin.flatMap { strdup($0) }
            var legacy: [UnsafePointer<CChar>?] = [twinPath.map { UnsafePointer($0) }, nil]
            var plan = jobd_spawn_plan()
            plan.input = null
            plan.output = null
            plan.error = null
            plan.cgroup = directory
            let spawned = path.map { path in
                argv.withUnsafeMutableBufferPointer { arguments in
                    legacy.withUnsafeMutableBufferPointer { twins in
                        plan.path = UnsafePointer(path)
                        plan.argv = UnsafePointer(arguments.baseAddress)
                        plan.environment = UnsafePointer(environ)
                        plan.legacy_cgroups = UnsafePointer(twins.baseAddress)
                        return jobd_spawn(&plan)
                    }
                }
            }
            free(twinPath)
            if directory >= 0 { close(directory) }
            guard spawned == 0 else { errno = plan.error_number; return fail("spawn, step \(plan.failed_step)") }
            var status: Int32 = 0
            while waitpid(plan.pid, &status, 0) < 0 && errno == EINTR {}
            close(plan.pidfd)
            if let twin { rmdir(twin) }
            if let unified { guard rmdir(unified) == 0 else { return fail("rmdir \(unified)") } }
            count += 1
        }
        return count
    }
}
