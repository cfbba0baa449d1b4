import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile
import JobdPolicy

/// The key table (``JobFileKey``, issue 37): each key's declared repetition is what its reader
/// does, and a user's job is refused or taken by the policy the table gives the key.
@Suite struct JobFileKeyTests {
    static func read(_ body: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "keys", path: "keys.job", text: "[Job]\nExecStart=/bin/true\n" + body)
    }

    /// Two different values of each list key.
    static let listExamples: [String: (String, String)] = [
        "OnStartupSec": ("1min", "2min"), "OnUnitActiveSec": ("1h", "2h"), "OnUnitInactiveSec": ("1h", "2h"),
        "OnCalendar": ("daily", "weekly"), "Cron": ("0 3 * * *", "0 4 * * *"), "ExecStart": ("/bin/true", "/bin/false"),
        "Environment": ("A=1", "B=2"), "EnvironmentFile": ("/etc/a.env", "-/etc/b.env"), "SupplementaryGroups": ("root", "nogroup"),
        "OnFailure": ("a", "b"), "OnSuccess": ("a", "b"), "MailTo": ("root", "admin"), "SuccessExitStatus": ("2", "3"),
        "RestartPreventExitStatus": ("2", "3"), "ReadWritePaths": ("/var/a", "/var/b"), "ReadOnlyPaths": ("/var/a", "/var/b"),
        "InaccessiblePaths": ("/var/a", "/var/b"), "ConditionPathExists": ("/a", "/b"), "AssertPathExists": ("/a", "/b"),
        "ConditionPathIsDirectory": ("/a", "/b"), "AssertPathIsDirectory": ("/a", "/b"), "ConditionFileNotEmpty": ("/a", "/b"),
        "AssertFileNotEmpty": ("/a", "/b"), "ConditionACPower": ("yes", "no"), "AssertACPower": ("yes", "no"),
        "ConditionVirtualization": ("vm", "container"), "AssertVirtualization": ("vm", "container"),
        "ConditionCapability": ("CAP_CHOWN", "CAP_KILL"), "AssertCapability": ("CAP_CHOWN", "CAP_KILL"),
        "ConditionUser": ("root", "0"), "AssertUser": ("root", "0"),
    ]

    /// A list key's lines add up, and an empty line clears what came before it, as systemd's.
    @Test(arguments: JobFileKey.all.filter { $0.repetition == .list }.map(\.name))
    func aListKeyAddsItsLinesAndAnEmptyValueClearsThem(key: String) throws {
        let (first, second) = try #require(Self.listExamples[key], "no example of the list key \(key)=")
        // ExecStart= is a list of one: a second line is an error, which is what adding is there.
        let prefix = key == "ExecStart" ? "ExecStart=\n" : ""
        let one = try Self.read(prefix + "\(key)=\(second)\n").get()
        let cleared = try Self.read(prefix + "\(key)=\(first)\n\(key)=\n\(key)=\(second)\n").get()
        #expect(cleared == one, "\(key)= empty does not clear the lines before it")
        if key != "ExecStart" {
            #expect(try Self.read("\(key)=\(first)\n\(key)=\n").get() == Self.read("").get(), "\(key)= empty leaves a line before it")
        }
        switch Self.read(prefix + "\(key)=\(first)\n\(key)=\(second)\n") {
        case .success(let both): #expect(both != one, "\(key)='s second line replaced its first")
        case .failure(let errors): #expect(key == "ExecStart" && errors.description.contains("ExecStart= is given 2 times"), "\(errors)")
        }
    }

    /// The keys the table gives to ``Sandbox`` and ``ProcessAttributes`` are the ones their readers
    /// know: a wrong value of each is an error, never a key those readers silently pass over; and
    /// every resource limit has its `Limit…=` key there.
    @Test func theKeysOfTheSandboxAndTheProcessAttributesAreTheOnesTheirReadersKnow() throws {
        #expect(!Sandbox.keys.isEmpty && !ProcessAttributes.keys.isEmpty && Sandbox.keys.isDisjoint(with: ProcessAttributes.keys))
        for name in Sandbox.keys {
            var sandbox = Sandbox()
            let wrong = sandbox.read(try #require(JobKey(rawValue: name)), value: "wrong value")
            #expect(wrong != nil, "Sandbox does not read \(name)=")
        }
        for name in ProcessAttributes.keys {
            var attributes = ProcessAttributes()
            let wrong = attributes.read(try #require(JobKey(rawValue: name)), value: "wrong value")
            #expect(wrong != nil, "ProcessAttributes does not read \(name)=")
        }
        #expect(Set(ResourceLimit.Resource.allCases.map(\.key)).isSubset(of: ProcessAttributes.keys))
    }

    /// A flag key of the table (``Sandbox/Value/flag``) is held by key, with no field of its own:
    /// yes puts exactly that key in ``Sandbox/flags``, a later no or an empty value takes it out.
    @Test(arguments: JobKey.allCases.filter { if case .sandbox(.flag) = $0.reader { true } else { false } })
    func aFlagKeyIsHeldByTheKeyItself(key: JobKey) throws {
        #expect(try Self.read("\(key.rawValue)=yes\n").get().sandbox.flags == [key])
        #expect(try Self.read("\(key.rawValue)=yes\n\(key.rawValue)=no\n").get().sandbox.flags.isEmpty)
        #expect(try Self.read("\(key.rawValue)=yes\n\(key.rawValue)=\n").get().sandbox == Sandbox())
    }

    /// For each key that declares exposure checks (``JobFileKey/exposureChecks``): a job without
    /// it, and with it, as a user would write them.
    static let exposureExamples: [String: (without: String, with: String)] = [
        "User": ("", "User=nobody"), "SupplementaryGroups": ("User=nobody", "User=nobody\nSupplementaryGroups=nogroup"),
        "UMask": ("", "UMask=0077"), "ProtectClock": ("PrivateDevices=yes", "PrivateDevices=yes\nProtectClock=yes"),
        "ProtectSystem": ("", "ProtectSystem=strict"), "RestrictNamespaces": ("", "RestrictNamespaces=yes"),
        "SystemCallFilter": ("", "SystemCallFilter=@system-service"), "CapabilityBoundingSet": ("", "CapabilityBoundingSet=CAP_CHOWN"),
        "AmbientCapabilities": ("", "AmbientCapabilities=CAP_CHOWN"), "ReadWritePaths": ("", "ReadWritePaths=/tmp"),
        "ReadOnlyPaths": ("", "ReadOnlyPaths=/tmp"), "InaccessiblePaths": ("", "InaccessiblePaths=/tmp"),
    ]

    /// Checks no key can change, though their ids name one: jobd refuses the key's safe value.
    static let checksNoKeyChanges: Set = ["PrivateUsers="]

    static func matches(_ check: String, _ declared: String) -> Bool {
        declared.hasSuffix("~") ? check.hasPrefix(declared) : check == declared
    }

    /// A key's declared exposure is what it does to `systemd-analyze security`'s checks: setting
    /// it changes each check it declares, and no other; so a key that feeds a check, or a check
    /// that reads a new key, cannot be left out of the key table's declaration.
    @Test(arguments: JobFileKey.all.filter { !$0.exposureChecks.isEmpty })
    func aKeyChangesExactlyTheExposureChecksItDeclares(key: JobFileKey) throws {
        let (without, with) = Self.exposureExamples[key.name] ?? ("", "\(key.name)=yes")
        let before = SecurityExposure(try Self.read(without).get()).checks
        let after = SecurityExposure(try Self.read(with).get()).checks
        #expect(before.map(\.id) == after.map(\.id))
        let changed = Set(zip(before, after).filter { $0.badness != $1.badness }.map(\.0.id))
        for declared in key.exposureChecks {
            #expect(changed.contains { Self.matches($0, declared) }, "\(key.name)= declares \(declared), which it does not change")
        }
        let undeclared = changed.filter { check in !key.exposureChecks.contains { Self.matches(check, $0) } }
        #expect(undeclared.isEmpty, "\(key.name)= changes \(undeclared.sorted()) but does not declare them")
    }

    /// Every check of `systemd-analyze security` whose id names a key of the table (`NoNewPrivileges=`,
    /// `CapabilityBoundingSet=~CAP_SYS_ADMIN`) is declared by that key.
    @Test func everyExposureCheckNamingAKeyIsDeclaredByIt() {
        for check in SecurityExposure(JobDefinition(name: "a", path: "/a.job", triggers: [], command: try! ExecCommand.parse("/bin/true"))).checks {
            guard let name = check.id.split(separator: "=").first, let key = JobFileKey(name: String(name)),
                  !Self.checksNoKeyChanges.contains(check.id) else { continue }
            #expect(key.exposureChecks.contains { Self.matches(check.id, $0) }, "\(key.name)= does not declare the check \(check.id)")
        }
    }

    /// For each sandbox or process-attribute key whose `KEY=yes` is not a value: a job without it,
    /// and with it.
    static let planExamples: [String: (without: String, with: String)] = [
        "Nice": ("", "Nice=5"), "IOSchedulingClass": ("", "IOSchedulingClass=idle"), "IOSchedulingPriority": ("", "IOSchedulingPriority=3"),
        "CPUSchedulingPolicy": ("", "CPUSchedulingPolicy=batch"),
        "CPUSchedulingPriority": ("CPUSchedulingPolicy=fifo", "CPUSchedulingPolicy=fifo\nCPUSchedulingPriority=5"),
        "UMask": ("", "UMask=0077"), "ProtectSystem": ("", "ProtectSystem=strict"), "RestrictNamespaces": ("", "RestrictNamespaces=yes"),
        "SystemCallFilter": ("", "SystemCallFilter=@clock"),
        "SystemCallErrorNumber": ("SystemCallFilter=~@clock", "SystemCallFilter=~@clock\nSystemCallErrorNumber=EPERM"),
        "ReadWritePaths": ("", "ReadWritePaths=/tmp"), "ReadOnlyPaths": ("", "ReadOnlyPaths=/tmp"),
        "InaccessiblePaths": ("", "InaccessiblePaths=/tmp"), "CapabilityBoundingSet": ("", "CapabilityBoundingSet=CAP_CHOWN"),
        "AmbientCapabilities": ("", "AmbientCapabilities=CAP_CHOWN"), "PrivateUsers": ("", "PrivateUsers=no"),
    ]

    /// The exec plan's fields (tag: values) of the sandbox and process attributes of `body`.
    static func planFields(_ body: String) throws -> [Int: [[UInt8]]] {
        let definition = try read(body).get()
        var plan = ExecPlan()
        // As the runner: private /tmp and /var/tmp directories are made for PrivateTmp= alone.
        plan.sandbox = definition.sandbox.execSandbox(privateTmp: definition.sandbox.privateTmp ? ("/tmp/jobd-a", "/var/tmp/jobd-b") : nil)
        plan.attributes = definition.processAttributes.execAttributes
        let bytes = plan.encoded()
        var fields: [Int: [[UInt8]]] = [:]
        var index = 12  // magic, version, reserved, length
        while index + 6 <= bytes.count {
            let tag = Int(bytes[index]) | Int(bytes[index + 1]) << 8
            let length = (0..<4).reduce(0) { $0 | Int(bytes[index + 2 + $1]) << (8 * $1) }
            fields[tag, default: []].append(Array(bytes[(index + 6)..<(index + 6 + length)]))
            index += 6 + length
        }
        return fields
    }

    /// A sandbox or process-attribute key's declared plan fields (``JobFileKey/planTags``) are
    /// what the encoder writes for it: setting it changes each field it declares and no other.
    @Test(arguments: JobFileKey.all.filter { Sandbox.keys.contains($0.name) || ProcessAttributes.keys.contains($0.name) })
    func aKeyChangesExactlyThePlanFieldsItDeclares(key: JobFileKey) throws {
        let limit = key.name.hasPrefix("Limit") ? ("", "\(key.name)=5") : nil
        // A number the table declares, at the top of its range.
        let number = if case .job(let jobKey) = key, let field = jobKey.planNumber { ("", "\(key.name)=\(field.range.upperBound)") } else { nil as (String, String)? }
        let (without, with) = Self.planExamples[key.name] ?? limit ?? number ?? ("", "\(key.name)=yes")
        let (before, after) = (try Self.planFields(without), try Self.planFields(with))
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        #expect(changed == Set(key.planTags), "\(key.name)= changes the plan's tags \(changed.sorted()), declares \(key.planTags.sorted())")
        // Such a key that reaches no field of the plan would do nothing; PrivateUsers= is only ever no.
        #expect(!key.planTags.isEmpty || key.name == "PrivateUsers", "\(key.name)= reaches jobd-cgexec in no field of the plan")
    }

    /// Whatever the value, a key the table makes root's is refused in a user's job with its line,
    /// and a free or sandbox key is never refused for being set: UserJobPolicy keeps no list of
    /// its own.
    @Test(arguments: JobFileKey.all)
    func aUsersJobIsRefusedExactlyTheKeysTheTableMakesRoots(key: JobFileKey) throws {
        let owner = try #require(try Account.resolve(user: "nobody", group: nil))
        let bounds = UserJobPolicy.Bounds(settings: DaemonSettings(), systemMaximum: 10_000)
        let errors = UserJobPolicy.errors(in: "[Job]\nExecStart=/bin/true\n\(key.name)=x\n", path: "mine.job", owner: owner, bounds: bounds)
            .map(\.description)
        switch key.userPolicy {
        case .rootOnly:
            #expect(errors.count == 1 && errors.first?.hasPrefix("mine.job:3: error: \(key.name)= needs root: a user's job may not set it") == true,
                    "\(errors)")
        case .free, .sandbox:
            #expect(errors.isEmpty, "\(errors)")
        case .checked, .bounded:
            #expect(UserJobPolicy.allowedKeys.contains(key.name))
        }
        #expect(UserJobPolicy.allowedKeys.contains(key.name) == key.userPolicy.isAllowed)
    }
}

extension JobFileKey: CustomTestStringConvertible {
    var testDescription: String { name }
}
