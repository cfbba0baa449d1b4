import CJobdExec
import Glibc
import JobdConfig
import Testing

/// jobd-cgexec's parser of the exec plan (Sources/CJobdExec/plan.c), called directly: a plan that
/// is not exactly right is refused whole, with the exit status and reason jobd reports, before any
/// step is taken. The tests are Swift's (swift-testing, in `scripts/test --unit`) rather than a C
/// program's: the parser never exits, and the bytes are built with the same encoder jobd uses.
struct ExecPlanParserTests {
    /// A plan of raw fields, as the encoder frames them, with `version` and `declared` in its header.
    static func raw(_ fields: [(Int, [UInt8])], version: UInt16 = UInt16(EXEC_PLAN_VERSION), declared: UInt32? = nil) -> [UInt8] {
        var body: [UInt8] = []
        for (tag, value) in fields { body += le(UInt16(tag)) + le(UInt32(value.count)) + value }
        return Array("JDXP".utf8) + le(version) + [0, 0] + le(declared ?? UInt32(body.count)) + body
    }

    static func le<Number: FixedWidthInteger>(_ value: Number) -> [UInt8] {
        (0..<Number.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func text(_ value: String) -> [UInt8] { Array(value.utf8) + [0] }

    /// The smallest plan that runs something, and the refusal of it with `fields` added.
    static let command: [(Int, [UInt8])] = [(EXEC_TAG_ARGUMENT, text("/bin/true"))]

    static func refusal(_ bytes: [UInt8]) -> ExecPlanRoundTripTests.Refusal? {
        do {
            _ = try ExecPlanRoundTripTests.parsed(bytes)
            return nil
        } catch {
            return error as? ExecPlanRoundTripTests.Refusal
        }
    }

    static func refusal(adding fields: [(Int, [UInt8])]) -> ExecPlanRoundTripTests.Refusal? {
        refusal(raw(command + fields))
    }

    @Test func aPlanOfAnotherVersionOrNoPlanIsRefusedByItsHeader() {
        #expect(Self.refusal(Self.raw(Self.command)) == nil, "the fixture itself is a good plan")
        #expect(Self.refusal(Self.raw(Self.command, version: 2)) == .init(
            status: Int32(EXIT_USAGE), message: "exec plan version 2, this jobd-cgexec reads version 1: install jobd and jobd-cgexec together"))
        var other = Self.raw(Self.command)
        other[0] = UInt8(ascii: "X")
        #expect(Self.refusal(other)?.message.hasPrefix("not an exec plan") == true)
        #expect(Self.refusal(Array("--uid 0 -- /bin/sh".utf8))?.status == Int32(EXIT_USAGE), "the words of before are not a plan")
    }

    /// Every plan cut short, at any byte, is refused: never run with part of its plan.
    @Test func everyTruncationIsRefused() {
        let whole = ExecPlanRoundTripTests.everything.encoded()
        for length in 0..<whole.count {
            let refused = Self.refusal(Array(whole.prefix(length)))
            #expect(refused?.status == Int32(EXIT_EXEC) && refused?.message == "the exec plan was cut short", "cut at \(length): \(String(describing: refused))")
        }
        // And a field running past a header that says less.
        #expect(Self.refusal(Self.raw(Self.command + [(EXEC_TAG_UID, [0, 0])], declared: 15 + 6 + 4))?.message == "the exec plan was cut short")
        #expect(Self.refusal(Self.raw(Self.command) + [0])?.message == "bytes after the exec plan")
    }

    @Test func anUnknownTagARepeatedFieldOrAWrongSizeIsRefused() {
        #expect(Self.refusal(adding: [(99, [])]) == .init(status: Int32(EXIT_USAGE), message: "unknown field 99 in the exec plan"))
        #expect(Self.refusal(adding: [(999, [])])?.message == "unknown field 999 in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_UID, Self.le(UInt32(1))), (EXEC_TAG_UID, Self.le(UInt32(2)))])?.message
                == "the exec plan has more than one uid")
        #expect(Self.refusal(adding: [(EXEC_TAG_UID, [1, 0])])?.message == "the exec plan's uid is 2 bytes, not 4")
        #expect(Self.refusal(adding: [(EXEC_TAG_KEYRING, [1])])?.message == "the exec plan's keyring is 1 bytes, not 0")
        #expect(Self.refusal(adding: [(EXEC_TAG_GROUPS, [1, 0, 0])])?.status == Int32(EXIT_GROUP))
    }

    @Test func oversizeFieldsAreRefused() {
        #expect(Self.refusal(Self.raw(Self.command, declared: UInt32(EXEC_PLAN_MAX_SIZE) + 1))?.message == "the exec plan is larger than 67108864 bytes")
        let long = "/" + String(repeating: "a", count: Int(EXEC_PLAN_MAX_PATH))
        #expect(Self.refusal(adding: [(EXEC_TAG_CGROUP, Self.text(long))])?.message == "bad cgroup in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_CGROUP, Self.text(String(long.dropLast())))]) == nil, "a path of 4095 bytes is taken")
        let cgroups = (0...Int(EXEC_PLAN_MAX_CGROUPS)).map { (EXEC_TAG_CGROUP, Self.text("/sys/fs/cgroup/\($0)")) }
        #expect(Self.refusal(adding: cgroups)?.message == "the exec plan has more than 8 cgroup entries")
        let limits = (0...Int(EXEC_PLAN_MAX_RLIMITS)).map { _ in (EXEC_TAG_RLIMIT, [UInt8](repeating: 0, count: 20)) }
        #expect(Self.refusal(adding: limits)?.message == "the exec plan has more than 16 rlimit entries")
    }

    /// Strings end with their NUL and hold no other; lists are made of such strings.
    @Test func stringsAreExactlyNulTerminated() {
        #expect(Self.refusal(adding: [(EXEC_TAG_ENVIRONMENT, Array("A=1".utf8))])?.message == "bad environment entry in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_ENVIRONMENT, Array("A=1\u{0}B=2\u{0}".utf8))])?.message == "bad environment entry in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_ENVIRONMENT, Self.text("NOEQUALS"))])?.message == "bad environment entry in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_ENVIRONMENT, Self.text("=value"))])?.message == "bad environment entry in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_ARGUMENT, Self.text(""))]) == nil, "an empty argument is an argument")
        #expect(Self.refusal(adding: [(EXEC_TAG_SECCOMP, Self.le(Int32(0)) + Self.le(Int32(1)))])?.message == "bad seccomp filter in the exec plan")
        #expect(Self.refusal(adding: [(EXEC_TAG_PRIVATE_TMP, Self.text("/tmp/a"))])?.message == "bad private /tmp in the exec plan")
    }

    /// What each step would refuse is refused before the first step: the credentials, the
    /// attributes, the sandbox and what a mode needs.
    @Test(arguments: [
        ([(EXEC_TAG_UID, le(UInt32.max))], EXIT_USER, "not a uid: 4294967295"),
        ([(EXEC_TAG_GID, le(UInt32.max))], EXIT_GROUP, "not a gid: 4294967295"),
        ([(EXEC_TAG_NICE, le(Int32(20)))], EXIT_USAGE, "bad nice value: 20"),
        ([(EXEC_TAG_NICE, le(Int32(-21)))], EXIT_USAGE, "bad nice value: -21"),
        ([(EXEC_TAG_UMASK, le(UInt32(0o1000)))], EXIT_USAGE, "bad umask: 1000"),
        ([(EXEC_TAG_RLIMIT, le(UInt32(16)) + le(UInt64(0)) + le(UInt64(0)))], EXIT_USAGE, "bad resource limit 16"),
        ([(EXEC_TAG_CGROUP, text("sys/fs/cgroup"))], EXIT_USAGE, "bad cgroup in the exec plan"),
        ([(EXEC_TAG_DIRECTORY, [2] + text("/home"))], EXIT_USAGE, "bad working directory in the exec plan"),
        ([(EXEC_TAG_DIRECTORY, [0] + text("home"))], EXIT_USAGE, "bad working directory in the exec plan"),
        ([(EXEC_TAG_FENCE, le(UInt64(1)) + text("fence"))], EXIT_USAGE, "bad fence in the exec plan"),
        ([(EXEC_TAG_MODE, le(UInt32(7)))], EXIT_USAGE, "unknown mode 7"),
        ([(EXEC_TAG_MOUNT, [5, 0] + text("/srv"))], EXIT_USAGE, "bad mount in the exec plan"),
        ([(EXEC_TAG_MOUNT, [0, 0] + text("srv"))], EXIT_USAGE, "bad mount in the exec plan"),
        ([(EXEC_TAG_DEVICE_POLICY, le(UInt32(3)))], EXIT_USAGE, "unknown device policy 3"),
        ([(EXEC_TAG_DEVICE_POLICY, le(UInt32(EXEC_DEVICES_CLOSED)))], EXIT_CGROUP, "a device policy needs the run's cgroup v2"),
        ([(EXEC_TAG_SECCOMP, le(Int32(0)) + le(Int32(4096)) + text("read"))], EXIT_USAGE, "bad seccomp filter in the exec plan"),
        ([(EXEC_TAG_SECCOMP, le(Int32(-2)) + le(Int32(1)) + text("read"))], EXIT_USAGE, "bad seccomp filter in the exec plan"),
        ([(EXEC_TAG_USER_PATHS, []), (EXEC_TAG_UID, le(UInt32(1)))], EXIT_USAGE, "user paths need the run's uid and gid"),
        ([(EXEC_TAG_READ_FILE, text("/etc/a.env"))], EXIT_USAGE, "a plan that runs a command reads no files"),
    ])
    func eachStepsValuesAreCheckedFirst(fields: [(Int, [UInt8])], status: Int, message: String) {
        #expect(Self.refusal(adding: fields) == .init(status: Int32(status), message: message))
    }

    @Test func aModeNeedsWhatItDoes() {
        #expect(Self.refusal(Self.raw([]))?.message == "the exec plan has no command")
        #expect(Self.refusal(Self.raw([(EXEC_TAG_ARGUMENT, Self.text(""))]))?.message == "the exec plan has no command")
        let read = [(EXEC_TAG_MODE, Self.le(UInt32(EXEC_MODE_READ)))]
        #expect(Self.refusal(Self.raw(read))?.message == "a plan that reads files has files and no command")
        #expect(Self.refusal(Self.raw(read + Self.command + [(EXEC_TAG_READ_FILE, Self.text("/a"))]))?.message
                == "a plan that reads files has files and no command")
        #expect(Self.refusal(Self.raw(read + [(EXEC_TAG_READ_FILE, Self.text("/a"))])) == nil)
    }

    /// The reader takes exactly the plan's bytes from its descriptor: what follows (a mail's
    /// message) is left for the command.
    @Test func theReaderLeavesWhatFollowsThePlan() throws {
        var plan = ExecPlan()
        plan.argv = ["/usr/sbin/sendmail", "-i"]
        plan.keepsStandardInput = true
        let message = Array("Subject: x\n\nbody\n".utf8)
        var pipe: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[0]) }
        let bytes = plan.encoded() + message
        #expect(write(pipe[1], bytes, bytes.count) == bytes.count)
        close(pipe[1])
        var parsed = exec_plan()
        var error = [CChar](repeating: 0, count: 512)
        #expect(exec_plan_read(pipe[0], &parsed, &error, error.count) == 0)
        #expect(parsed.keep_stdin == 1 && parsed.argc == 2)
        exec_plan_release(&parsed)
        var rest = [UInt8](repeating: 0, count: 256)
        let count = read(pipe[0], &rest, rest.count)
        #expect(Array(rest.prefix(max(count, 0))) == message)
    }

    /// A stream that ends early (jobd stopped writing) is the one refusal it always was: cut short.
    @Test func theReaderRefusesAStreamCutShort() throws {
        let whole = ExecPlanRoundTripTests.everything.encoded()
        for length in [0, 5, 12, whole.count - 1] {
            var pipe: [Int32] = [-1, -1]
            try #require(Glibc.pipe(&pipe) == 0)
            #expect(write(pipe[1], whole, length) == length)
            close(pipe[1])
            var parsed = exec_plan()
            var error = [CChar](repeating: 0, count: 512)
            #expect(exec_plan_read(pipe[0], &parsed, &error, error.count) == Int32(EXIT_EXEC), "at \(length)")
            close(pipe[0])
        }
    }
}
