@testable import JobdRunner
import Testing

/// When jobd gives each run a cgroup, and why not otherwise.
struct CgroupProbeTests {
    static let usable = CgroupProbe(
        mount: "/sys/fs/cgroup", ownPath: "/system.slice/jobd.service", delegated: true, writable: true, alone: true,
        trampoline: "/usr/libexec/jobd/jobd-cgexec")

    @Test func aDelegatedWritableCgroupOfItsOwnIsUsed() {
        #expect(Self.usable.decision() == .success("/sys/fs/cgroup/system.slice/jobd.service"))
        var hybrid = Self.usable
        hybrid.mount = "/sys/fs/cgroup/unified"
        #expect(hybrid.decision() == .success("/sys/fs/cgroup/unified/system.slice/jobd.service"))
    }

    @Test(arguments: [
        ("mount", "no cgroup v2 hierarchy is mounted"),
        ("ownPath", "/proc/self/cgroup names no cgroup v2 path"),
        ("trampoline", "jobd-cgexec is not installed beside jobd"),
    ])
    func somethingMissingMeansProcessGroups(missing: String, reason: String) {
        var probe = Self.usable
        switch missing {
        case "mount": probe.mount = nil
        case "ownPath": probe.ownPath = nil
        default: probe.trampoline = nil
        }
        #expect(probe.decision() == .failure(CgroupProbe.Refusal(reason)))
    }

    @Test func aCgroupThatIsNotJobdsAloneMeansProcessGroups() {
        var probe = Self.usable
        probe.delegated = false
        #expect(probe.decision() == .failure(CgroupProbe.Refusal(
            "its cgroup /system.slice/jobd.service is not delegated to it (jobd.service has Delegate=yes)")))
        probe = Self.usable
        probe.writable = false
        #expect(probe.decision() == .failure(CgroupProbe.Refusal("its cgroup /system.slice/jobd.service is not writable")))
        // A test runner, a shell or a terminal session: jobd must not move into a cgroup others share.
        probe = Self.usable
        probe.alone = false
        #expect(probe.decision() == .failure(CgroupProbe.Refusal("other processes share its cgroup /system.slice/jobd.service")))
        probe = Self.usable
        probe.ownPath = "/"
        #expect(probe.decision() == .failure(CgroupProbe.Refusal("jobd runs in the root cgroup")))
    }
}
