import JobdConfig
import Testing

/// `Condition…=` and `Assert…=`, read and judged as systemd.unit(5) says.
struct UnitConditionTests {
    static func read(_ lines: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "c", path: "/j/c.job", text: "[Job]\nExecStart=/bin/true\n" + lines)
    }

    /// A machine as a test says it is.
    struct Facts: ConditionFacts {
        var paths: Set<String> = []
        var directories: Set<String> = []
        var nonEmpty: Set<String> = []
        var onACPower = true
        var virtualization: (name: String, kind: String)?
        var capabilities: Set<Int> = []
        var user: (uid: UInt32, name: String) = (0, "root")
        func exists(_ path: String) -> Bool { paths.contains(path) || directories.contains(path) }
        func isDirectory(_ path: String) -> Bool { directories.contains(path) }
        func isNonEmptyFile(_ path: String) -> Bool { nonEmpty.contains(path) }
        func hasCapability(_ number: Int) -> Bool { capabilities.contains(number) }
    }

    @Test func theKeysReadAsSystemdsAndAnEmptyOneResetsThemAll() throws {
        let read = try Self.read("ConditionPathExists=!/etc/initrd-release\nAssertPathIsDirectory=/srv\nConditionACPower=true\n"
                                 + "ConditionVirtualization=!container\nConditionCapability=CAP_SYS_ADMIN\nConditionUser=@system\n"
                                 + "ConditionFileNotEmpty=|/etc/a\nConditionFileNotEmpty=|/etc/b\n").get()
        #expect(read.conditions.map(\.description) == [
            "ConditionPathExists=!/etc/initrd-release", "AssertPathIsDirectory=/srv", "ConditionACPower=true",
            "ConditionVirtualization=!container", "ConditionCapability=CAP_SYS_ADMIN", "ConditionUser=@system",
            "ConditionFileNotEmpty=|/etc/a", "ConditionFileNotEmpty=|/etc/b",
        ])
        #expect(try Self.read("ConditionPathExists=/a\nAssertACPower=yes\nConditionPathExists=\nConditionUser=root\n").get()
            .conditions.map(\.description) == ["ConditionUser=root"])
    }

    @Test(arguments: [
        ("ConditionPathExists=etc/x", "ConditionPathExists= needs an absolute path, not 'etc/x'"),
        ("AssertFileNotEmpty=!x", "AssertFileNotEmpty= needs an absolute path, not 'x'"),
        ("ConditionACPower=maybe", "ConditionACPower= takes yes or no, not 'maybe'"),
        ("ConditionCapability=CAP_FLY", "ConditionCapability=: 'CAP_FLY' is not a capability"),
        ("ConditionUser=", nil),
    ] as [(String, String?)])
    func wrongValuesAreErrorsAtTheirLine(line: String, message: String?) {
        switch Self.read(line + "\n") {
        case .success:
            #expect(message == nil, "\(line) was accepted")
        case .failure(let errors):
            #expect(errors.errors.first?.message == message && errors.errors.first?.line == 3, "\(errors)")
        }
    }

    @Test func conditionsHoldAsSystemdJudgesThem() throws {
        func failing(_ lines: String, _ facts: Facts) throws -> String? {
            UnitCondition.failing(try Self.read(lines).get().conditions, on: facts)?.description
        }
        let host = Facts(paths: ["/etc/ready"], directories: ["/srv"], nonEmpty: ["/etc/ready"], capabilities: [21])
        #expect(try failing("ConditionPathExists=/etc/ready\nConditionPathIsDirectory=/srv\nConditionFileNotEmpty=/etc/ready\n", host) == nil)
        #expect(try failing("ConditionPathExists=/etc/ready\nConditionPathExists=!/etc/initrd-release\n", host) == nil)
        #expect(try failing("ConditionPathIsDirectory=/etc/ready\n", host) == "ConditionPathIsDirectory=/etc/ready")
        #expect(try failing("ConditionPathExists=!/etc/ready\n", host) == "ConditionPathExists=!/etc/ready")
        // Triggering conditions: one of them is enough, none is not.
        #expect(try failing("ConditionPathExists=|/nowhere\nConditionPathExists=|/etc/ready\n", host) == nil)
        #expect(try failing("ConditionPathExists=|/nowhere\nConditionPathExists=|/nothing\n", host) == "ConditionPathExists=|/nowhere")
        // fstrim.timer's ConditionVirtualization=!container, in a container and out of one.
        var container = host
        container.virtualization = ("systemd-nspawn", "container")
        #expect(try failing("ConditionVirtualization=!container\n", host) == nil)
        #expect(try failing("ConditionVirtualization=!container\n", container) == "ConditionVirtualization=!container")
        #expect(try failing("ConditionVirtualization=systemd-nspawn\nConditionVirtualization=yes\n", container) == nil)
        var battery = host
        battery.onACPower = false
        #expect(try failing("ConditionACPower=true\n", battery) == "ConditionACPower=true")
        #expect(try failing("ConditionACPower=false\n", battery) == nil)
        #expect(try failing("ConditionCapability=CAP_SYS_ADMIN\n", host) == nil)
        #expect(try failing("ConditionCapability=CAP_SYS_RAWIO\n", host) == "ConditionCapability=CAP_SYS_RAWIO")
        #expect(try failing("ConditionUser=root\nConditionUser=0\nConditionUser=@system\n", host) == nil)
        var person = host
        person.user = (1000, "ada")
        #expect(try failing("ConditionUser=@system\n", person) == "ConditionUser=@system")
        #expect(try failing("ConditionUser=ada\n", person) == nil)
    }
}
