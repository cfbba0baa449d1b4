@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile
import Testing

/// `Nice=`, `IOSchedulingClass=`, `IOSchedulingPriority=`, `UMask=` and the `Limit…=` keys, read
/// as systemd 252 reads them (systemd.exec(5); issue 27).
struct ProcessAttributesTests {
    static func read(_ lines: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "attributes", path: "/j/attributes.job", text: "[Job]\nExecStart=/bin/true\n" + lines)
    }

    static func attributes(_ lines: String) throws -> ProcessAttributes {
        try read(lines).get().processAttributes
    }

    @Test func niceIOAndUmaskAreTheKernelsValues() throws {
        let set = try Self.attributes("Nice=10\nIOSchedulingClass=idle\nUMask=0027\n")
        #expect(set.nice == 10 && set.ioClass == 3 && set.umask == 0o027)
        let planned = set.execAttributes
        #expect(planned.nice == 10 && planned.ioPriority == 3 << 13 | 4 && planned.umask == 0o027 && planned.scheduling == nil && planned.limits.isEmpty)
        // A class alone gets priority 4; a priority alone is best-effort, as systemd does.
        #expect(try Self.attributes("IOSchedulingClass=realtime\n").ioPriorityValue == 1 << 13 | 4)
        // systemd 252 keeps the priority with the idle class (man-db.service: idle:7), and the kernel reports it.
        #expect(try Self.attributes("IOSchedulingClass=idle\nIOSchedulingPriority=7\n").ioPriorityValue == 3 << 13 | 7)
        #expect(try Self.attributes("IOSchedulingPriority=7\n").ioPriorityValue == 2 << 13 | 7)
        #expect(try Self.attributes("IOSchedulingClass=best-effort\nIOSchedulingPriority=0\n").ioPriorityValue == 2 << 13)
        #expect(try Self.attributes("Nice=-20\n").nice == -20)
        #expect(try Self.attributes("CPUSchedulingPolicy=batch\n").execAttributes.scheduling == .init(policy: 3, priority: 0))
        #expect(try Self.attributes("CPUSchedulingPolicy=fifo\n").execAttributes.scheduling == .init(policy: 1, priority: 1))
        #expect(try Self.attributes("CPUSchedulingPolicy=rr\nCPUSchedulingPriority=50\n").execAttributes.scheduling == .init(policy: 2, priority: 50))
        #expect(try Self.attributes("Nice=5\nNice=\n").isDefault, "an empty value resets")
        #expect(try Self.attributes("").execAttributes == ExecPlan.Attributes())
    }

    @Test(arguments: [
        ("LimitNOFILE=1024", ResourceLimit.Resource.nofile, UInt64?(1_024), UInt64?(1_024)),
        ("LimitNOFILE=1024:4096", .nofile, 1_024, 4_096),
        ("LimitNOFILE=infinity", .nofile, nil, nil),
        ("LimitNOFILE=1024:infinity", .nofile, 1_024, nil),
        ("LimitCORE=0", .core, 0, 0),
        ("LimitAS=2G", .as, 2 << 30, 2 << 30),
        ("LimitMEMLOCK=64K:8M", .memlock, 64 << 10, 8 << 20),
        ("LimitCPU=30", .cpu, 30, 30),
        ("LimitCPU=5min", .cpu, 300, 300),
        ("LimitCPU=1500ms", .cpu, 2, 2),
        ("LimitRTTIME=2s", .rttime, 2_000_000, 2_000_000),
        ("LimitNICE=-5", .nice, 25, 25),
        ("LimitNICE=+19", .nice, 1, 1),
        ("LimitNICE=40", .nice, 40, 40),
    ])
    func aLimitIsOneValueOrSoftAndHard(line: String, resource: ResourceLimit.Resource, soft: UInt64?, hard: UInt64?) throws {
        let limit = try #require(try Self.attributes(line + "\n").limits[resource])
        #expect(limit.soft == soft && limit.hard == hard)
    }

    @Test(arguments: [
        "Nice=20", "Nice=-21", "Nice=ten", "IOSchedulingClass=fast", "IOSchedulingClass=4", "IOSchedulingPriority=8",
        "UMask=0999", "UMask=01777", "UMask=rw", "LimitNOFILE=lots", "LimitNOFILE=4096:1024", "LimitNOFILE=1:2:3",
        "LimitAS=2Q", "LimitNICE=41", "LimitNICE=-21", "LimitCPU=soon", "CPUSchedulingPolicy=deadline", "CPUSchedulingPriority=0",
    ])
    func aWrongValueIsAnErrorAtItsLine(line: String) {
        guard case .failure(let errors) = Self.read(line + "\n") else {
            Issue.record("\(line) was accepted")
            return
        }
        let key = String(line.prefix { $0 != "=" })
        #expect(errors.errors.count == 1 && errors.errors[0].line == 3 && errors.errors[0].message.hasPrefix(key + "="), "\(errors.errors)")
    }

    @Test func limitsGoToTheTrampolineByResourceNumber() throws {
        let set = try Self.attributes("LimitNOFILE=1000:2000\nLimitCORE=0\nLimitAS=infinity\n")
        #expect(set.execAttributes.limits == [
            .init(resource: .core, limit: ResourceLimit(soft: 0, hard: 0)), .init(resource: .nofile, limit: ResourceLimit(soft: 1_000, hard: 2_000)),
            .init(resource: .as, limit: ResourceLimit(soft: nil, hard: nil)),
        ])
    }

    /// A hard limit above jobd's own needs CAP_SYS_RESOURCE (an nspawn container's root has none):
    /// without it the key is an error at its line, where systemd would quietly set less.
    @Test func aHardLimitAboveJobdsOwnIsRefusedWithoutCapSysResource() throws {
        let set = try Self.attributes("LimitNOFILE=1000:2000\nLimitNICE=30\nLimitCORE=infinity\n")
        let own: [ResourceLimit.Resource: UInt64] = [.nofile: 4_096, .nice: 0, .core: 1 << 30]
        let refusals = set.limitRefusals(path: "/j/a.job", ownHard: { own[$0] }, mayRaise: false).map(\.description)
        #expect(refusals.count == 2, "\(refusals)")
        #expect(refusals.first?.hasPrefix(
            "/j/a.job:5: error: LimitCORE=: a hard limit of infinity cannot be set: jobd's own is 1073741824, and raising it needs CAP_SYS_RESOURCE") == true,
            "\(refusals)")
        #expect(refusals.last?.hasPrefix("/j/a.job:4: error: LimitNICE=: a hard limit of 30 cannot be set: jobd's own is 0") == true, "\(refusals)")
        #expect(set.limitRefusals(path: "/j/a.job", ownHard: { own[$0] }, mayRaise: true).isEmpty, "root on a host may raise them")
        #expect(set.limitRefusals(path: "/j/a.job", ownHard: { _ in nil }, mayRaise: false).isEmpty, "jobd's own are infinity")
        #expect(try Self.attributes("LimitNICE=30\nLimitNICE=\n").limitRefusals(path: "/j/a.job", ownHard: { own[$0] }, mayRaise: false).isEmpty)
    }
}
