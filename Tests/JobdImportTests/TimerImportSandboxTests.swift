import JobdConfig
import JobdImport
import JobdTestKit
import Testing

/// `jobctl import timer` carries a service's sandboxing keys over (issue 27): man-db.service's and
/// fstrim.service's, as Debian 12 ships them, keep their sandbox in the imported job.
struct TimerImportSandboxTests {
    static let timer = "[Timer]\nOnCalendar=daily\n"

    static func convert(_ service: String) -> TimerImporter.Result {
        let (timerFile, _) = UnitFile.parse(timer, path: "x.timer")
        let (serviceFile, _) = UnitFile.parse("[Service]\nType=oneshot\nExecStart=/usr/bin/mandb --quiet\n" + service, path: "x.service")
        return TimerImporter.convert(timer: timerFile, service: serviceFile, name: "x")
    }

    @Test func manDBsSandboxIsCarriedOver() throws {
        let keys = DebianUnitKeys.manDBSandbox
        let result = Self.convert(keys)
        let job = try #require(result.job)
        #expect(!result.hasLosses, "\(result.serviceReport.lines(path: "x.service"))")
        #expect(job.problems(path: "/j/x.job").isEmpty)
        let definition = try JobFileReader.read(name: "x", path: "/j/x.job", text: job.text).get()
        #expect(definition.sandbox.protectSystem == .full && definition.sandbox.protectHome == .yes)
        #expect(definition.sandbox.flags == [.privateTmp, .privateDevices, .protectHostname, .protectClock, .protectKernelTunables,
                                             .protectKernelModules, .protectKernelLogs, .protectControlGroups, .lockPersonality,
                                             .restrictRealtime])
    }

    @Test func fstrimsFilterLinesAreKeptAndMergeAsInTheService() throws {
        let result = Self.convert("""
            PrivateDevices=no
            PrivateNetwork=yes
            PrivateUsers=no
            ProtectKernelTunables=yes
            MemoryDenyWriteExecute=yes
            SystemCallFilter=@default @file-system @basic-io @system-service
            SystemCallFilter=~@swap

            """)
        let job = try #require(result.job)
        #expect(!result.hasLosses && job.problems(path: "/j/x.job").isEmpty)
        let filter = try #require(try JobFileReader.read(name: "x", path: "/j/x.job", text: job.text).get().sandbox.systemCallFilter)
        #expect(filter.allowList && filter.names.contains("openat") && !filter.names.contains("swapoff"))
    }

    @Test func aUserNamespaceIsReportedNotCarriedOver() throws {
        let result = Self.convert("PrivateUsers=yes\nPrivateTmp=yes\n")
        #expect(result.hasLosses)
        #expect(result.serviceReport.lines(path: "x.service") == [
            "x.service:4: not carried over: PrivateUsers=yes: jobd does not run a job in a user namespace of its own",
        ])
        #expect(try #require(result.job).assignments.contains { $0 == ("PrivateTmp", "yes") })
    }
}
