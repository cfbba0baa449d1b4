import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// A job's exposure, scored as systemd 252's `systemd-analyze security` scores a service (issue
/// 27). The expected figures are what systemd-analyze security --offline=true prints for a
/// service with the same keys plus what a jobd run always has (PrivateMounts=yes where a key gives
/// it a mount namespace); SecurityAcceptanceTests compares
/// with systemd-analyze itself.
struct SecurityExposureTests {
    static func exposure(_ lines: String) throws -> SecurityExposure {
        SecurityExposure(try JobFileReader.read(name: "boxed", path: "/j/boxed.job", text: "[Job]\nExecStart=/bin/true\n" + lines).get())
    }

    static let manDB = "User=man\n" + DebianUnitKeys.manDBSandbox

    @Test(arguments: [
        ("", 96, SecurityExposure.Predicate.unsafe),
        (manDB, 66, .medium),
        (DebianUnitKeys.logrotateSandbox, 64, .medium),
        ("""
         PrivateNetwork=yes
         ProtectKernelTunables=yes
         ProtectKernelModules=yes
         ProtectControlGroups=yes
         MemoryDenyWriteExecute=yes
         SystemCallFilter=@default @file-system @basic-io @system-service
         """, 69, .medium),
        ("User=nobody\nUMask=0077\nNoNewPrivileges=yes", 93, .unsafe),
        ("""
         User=backup
         SupplementaryGroups=adm
         ProtectSystem=strict
         ProtectHome=read-only
         CapabilityBoundingSet=
         SystemCallFilter=~@privileged @resources @obsolete
         RestrictNamespaces=~user net
         """, 48, .ok),
    ])
    func overallExposureIsSystemds(lines: String, tenths: Int, predicate: SecurityExposure.Predicate) throws {
        let exposure = try Self.exposure(lines + "\n")
        #expect(exposure.exposureTenths == tenths)
        #expect(exposure.predicate == predicate)
    }

    @Test func everyCheckOfSystemdIsThereOnceWithItsWeight() throws {
        let checks = try Self.exposure("").checks
        #expect(checks.count == 81)
        #expect(Set(checks.map(\.id)).count == 81)
        let weights = Dictionary(uniqueKeysWithValues: checks.map { ($0.id, ($0.weight, $0.range)) })
        #expect(weights["PrivateNetwork="]! == (2500, 1))
        #expect(weights["User=/DynamicUser="]! == (2000, 10))
        #expect(weights["ProtectProc="]! == (1000, 3))
        #expect(weights["SystemCallFilter=~@privileged"]! == (700, 10))
        #expect(weights["CapabilityBoundingSet=~CAP_BPF"]! == (25, 1))
        // The weights systemd 252 sums to for a root service: every check but the two that do not apply.
        #expect(checks.filter { $0.badness != nil }.map(\.weight).reduce(0, +) == 56_160)
    }

    @Test func rowsSayWhatSystemdSaysAndTheirShare() throws {
        let checks = Dictionary(uniqueKeysWithValues: try Self.exposure(Self.manDB + "\n").checks.map { ($0.id, $0) })
        let user = try #require(checks["User=/DynamicUser="])
        #expect(user.badness == 0 && user.description == "Service runs under a static non-root user identity" && user.exposureTenths == nil)
        #expect(checks["RemoveIPC="]?.badness == 1 && checks["RemoveIPC="]?.description == "Service user may leave SysV IPC objects around")
        #expect(checks["PrivateMounts="]?.badness == 0, "man-db's keys give it a mount namespace")
        #expect(checks["DeviceAllow="]?.badness == 5)
        #expect(checks["DeviceAllow="]?.description == "Service has a device ACL with some special devices: char-rtc:r")
        #expect(checks["ProtectSystem="]?.badness == 3)
        // PrivateDevices=, ProtectClock=… take their capabilities out, as systemd's unit_patch_contexts().
        #expect(checks["CapabilityBoundingSet=~CAP_SYS_TIME"]?.badness == 0)
        #expect(checks["CapabilityBoundingSet=~CAP_MKNOD"]?.badness == 0)
        #expect(checks["CapabilityBoundingSet=~CAP_SYS_ADMIN"]?.badness == 1)
        let root = Dictionary(uniqueKeysWithValues: try Self.exposure("").checks.map { ($0.id, $0) })
        #expect(root["SupplementaryGroups="]?.badness == nil)
        #expect(root["SupplementaryGroups="]?.description == "Service runs as root, option does not matter")
        #expect(root["User=/DynamicUser="]?.description == "Service runs as root user")
        // systemd's figure for a root service's User=: 2,000 × 100 / 56,160 is 3.6 tenths, rounded up to 4.
        #expect(root["User=/DynamicUser="]?.exposureTenths == 4)
        #expect(root["KeyringMode="]?.badness == 0, "a run has a session keyring of its own")
    }

    @Test(arguments: [
        ("SystemCallFilter=@system-service", "SystemCallFilter=~@mount", 0,
         "System call allow list defined for service, and @mount is not included"),
        ("SystemCallFilter=@system-service", "SystemCallFilter=~@privileged", 9,
         "System call allow list defined for service, and @privileged is included (e.g. chown is allowed)"),
        ("SystemCallFilter=~@mount", "SystemCallFilter=~@mount", 0, "System call deny list defined for service, and @mount is included"),
        ("SystemCallFilter=~@mount", "SystemCallFilter=~@swap", 10,
         "System call deny list defined for service, and @swap is not included (e.g. swapoff is allowed)"),
        ("", "SystemCallFilter=~@swap", 10, "Service does not filter system calls"),
    ])
    func systemCallFilterChecksNameAnOffender(lines: String, id: String, badness: Int, description: String) throws {
        let check = try #require(try Self.exposure(lines + "\n").checks.first { $0.id == id })
        #expect(check.badness == badness)
        #expect(check.description == description)
    }

    @Test(arguments: [(0, "PERFECT"), (1, "SAFE"), (9, "SAFE"), (10, "OK"), (49, "OK"), (50, "MEDIUM"), (75, "EXPOSED"), (90, "UNSAFE"), (100, "DANGEROUS")])
    func predicatesFollowSystemdsThresholds(tenths: Int, word: String) {
        #expect(SecurityExposure.Predicate(exposureTenths: tenths).rawValue == word)
    }

    @Test func theShortcutForAJobWithoutKeysIsTheFullScore() throws {
        let plain = try JobFileReader.read(name: "plain", path: "/j/plain.job", text: "[Job]\nExecStart=/bin/true\nOnCalendar=daily\n").get()
        #expect(SecurityExposure.exposureTenths(of: plain) == SecurityExposure(plain).exposureTenths)
        let boxed = try JobFileReader.read(name: "boxed", path: "/j/boxed.job", text: "[Job]\nExecStart=/bin/true\nPrivateTmp=yes\n").get()
        #expect(SecurityExposure.exposureTenths(of: boxed) == SecurityExposure(boxed).exposureTenths)
        #expect(SecurityExposure.exposureTenths(of: boxed) < SecurityExposure.exposureTenths(of: plain))
        // The read's figure is dropped when a setting it depends on changes.
        var changed = boxed
        changed.sandbox.flags.insert(.privateNetwork)
        #expect(SecurityExposure.exposureTenths(of: changed) == SecurityExposure(changed).exposureTenths)
        #expect(SecurityExposure.exposureTenths(of: changed) < SecurityExposure.exposureTenths(of: boxed))
        changed.user = "nobody"
        #expect(SecurityExposure.exposureTenths(of: changed) == SecurityExposure(changed).exposureTenths)
        let again = try JobFileReader.read(name: "boxed", path: "/j/boxed.job", text: "[Job]\nExecStart=/bin/true\nPrivateTmp=yes\n").get()
        #expect(changed != boxed && boxed == again)
    }
}
