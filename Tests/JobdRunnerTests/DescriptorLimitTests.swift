import Glibc
import JobdConfig
import JobdRunner
import Testing

/// Issue 39: jobd raises its own soft RLIMIT_NOFILE (three descriptors a run in flight) and gives
/// its runs the soft limit it started with; whether a run that needs only its cgroup skips
/// jobd-cgexec is decided once.
@Suite struct DescriptorLimitTests {
    @Test func jobdRaisesItsSoftLimitAndRunsKeepTheOneItStartedWith() {
        let table: [(soft: UInt64?, hard: UInt64?, nrOpen: UInt64?, raised: UInt64?, runs: ResourceLimit?)] = [
            // systemd's default for services: 1024:524288, nr_open 1048576.
            (1_024, 524_288, 1_048_576, 524_288, ResourceLimit(soft: 1_024, hard: 524_288)),
            // An infinite hard limit: no higher than nr_open, the most the kernel takes.
            (1_024, nil, 1_048_576, 1_048_576, ResourceLimit(soft: 1_024, hard: nil)),
            // A hard limit above nr_open: nr_open.
            (1_024, 4_000_000, 1_048_576, 1_048_576, ResourceLimit(soft: 1_024, hard: 4_000_000)),
            // nr_open unreadable: the hard limit.
            (1_024, 4_096, nil, 4_096, ResourceLimit(soft: 1_024, hard: 4_096)),
            // Already at the hard limit (a shell's 20000:20000): nothing to do, runs inherit it.
            (20_000, 20_000, 1_048_576, nil, nil),
            (nil, nil, 1_048_576, nil, nil),
            (1_024, nil, nil, nil, nil),
        ]
        for row in table {
            #expect(DescriptorLimit.decide(soft: row.soft, hard: row.hard, nrOpen: row.nrOpen) == DescriptorLimit(raisedSoft: row.raised, runs: row.runs),
                    "\(row)")
        }
    }

    @Test func aKernelThatCannotStartAProcessInACgroupIsFoundOutOnce() {
        #expect([ENOSYS, E2BIG, EINVAL, EOPNOTSUPP].allSatisfy { CgroupSpawn.isUnsupported(errno: $0) })
        #expect(![ENOENT, EACCES, EAGAIN, ENOMEM, EBUSY].contains { CgroupSpawn.isUnsupported(errno: $0) }, "a failure of this run alone")
        let spawn = CgroupSpawn()
        #expect(spawn.isAvailable)
        #expect(spawn.refuse("clone3: Function not implemented"), "the first refusal is logged")
        #expect(!spawn.refuse("clone3: Function not implemented"), "and no later one")
        #expect(!spawn.isAvailable)
    }
}
