// swift-tools-version: 6.2
//
// jobd: a job scheduler daemon for Linux.
//
// The data flows one way, and the targets follow it (docs/development.md says what each owns):
//   config files  -> JobdConfig (and JobdCalendar for calendar triggers), over JobdSystem -> JobdUnitFile ->
//                    JobdDefinition (the key table); JobdPolicy above it, for users' own jobs
//   definitions   -> JobdScheduler (job owners, generations, RunAdmission) on JobdTimers (the weak-target timer core)
//   runs          -> JobdRunner, through jobd-cgexec (C, CJobdExec: one exec plan; cgroups, attributes, sandbox,
//                    credentials, fences); each run's end is one RunOutcome (JobdDefinition) for the admission,
//                    history, waiters and metrics
//   journal       -> JobdLogging on SystemdKit (the only target that imports libsystemd)
//   claims        -> JobdFleet on libpq (the only target that imports CLibpq), for RunOn=one-node
//   control       -> JobdControl (the socket's protocol and JSON), JobctlCommands (jobctl)
//   afterwards    -> JobdAudit (the journal's lifecycle audit), JobdImport (crontabs and timers -> job files)
// JobdDaemon wires them together; `jobd` and `jobctl` are thin executables over it, shipped as
// one binary (jobctl a link to jobd, which runs as jobctl when started by that name).

import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    // As swift-log: a file imports what it uses (SE-0444), and an import says whether the module's
    // types are part of this one's API (SE-0409: `package import`, `public import`).
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // A warning fails the build (as swift-service-lifecycle's CI has it); SwiftPM applies this to jobd's
    // own targets only, never to a package that depends on JobdTimers.
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "jobd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "jobd", targets: ["jobd"]),
        .executable(name: "jobctl", targets: ["jobctl"]),
        // The root trampoline of every run that needs a cgroup, credentials, a sandbox or a fence.
        .executable(name: "jobd-cgexec", targets: ["jobd-cgexec"]),
        // The unit's main process, which keeps the runs a restarted jobd hands over (issue 36).
        .executable(name: "jobd-keeper", targets: ["jobd-keeper"]),
        // The timer core, for Swift programs that want weak-target timers without jobd.
        .library(name: "JobdTimers", targets: ["JobdTimers"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // `swift package generate-documentation --target JobdTimers`: the library's DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The Prometheus text format of MetricsFile=.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The shipped code, in the order the data flows: config files -> definitions -> owners and timers -> runs -> journal.
        // jobd's one lock and locked box: pthread-based, so that the thread sanitizer sees them.
        .target(name: "JobdLocks", swiftSettings: swiftSettings),
        // timerfd and eventfd, which Swift's Glibc module leaves out; imported by JobdTimers alone.
        .systemLibrary(name: "CTimerfd"),
        // The weak-target timer core: on Linux's timerfd (CTimerfd) and jobd's lock (JobdLocks) only,
        // no Foundation and no other jobd module, so that a Swift program can take it alone.
        .target(name: "JobdTimers", dependencies: ["CTimerfd", "JobdLocks"], swiftSettings: swiftSettings),
        // Calendar arithmetic: OnCalendar= and Cron=, pure, no I/O beyond reading tzdata.
        .target(name: "JobdCalendar", dependencies: ["JobdLocks", .product(name: "SystemPackage", package: "swift-system")], swiftSettings: swiftSettings),
        // jobd-cgexec's library (plain C): the exec plan's parser, exit statuses and each step of a
        // run's setup (credentials, cgroup, attributes, mounts, devices, seccomp, fence). Swift
        // imports its header for the exit statuses and the plan's tags: one table for both sides.
        // Its seccomp filters come from libseccomp, loaded (dlopen) only by a run that has one: the
        // build needs Debian's libseccomp-dev for the header, and the package depends on libseccomp2.
        .target(name: "CJobdExec"),
        // JobdConfig, split by what each part owns (issue 37), bottom up:
        // the system utilities: accounts, file descriptors and directories, atomic writes; on swift-system,
        // with retryingOnInterrupt, the one EINTR retry of the calls swift-system's FileDescriptor lacks.
        .target(name: "JobdSystem", dependencies: [.product(name: "SystemPackage", package: "swift-system")], swiftSettings: swiftSettings),
        // The unit-file syntax: the lexer and parser, spellings, and the value parsers (time spans,
        // sizes, command lines, environment files, exit statuses, resource values, system call groups).
        .target(name: "JobdUnitFile", dependencies: ["JobdSystem", "CJobdExec"], swiftSettings: swiftSettings),
        // The job definition with its key table (JobFileKey), the drafts the reader fills, the
        // sandbox, the exposure; RunOutcome, how a run ended, which every module after it takes; and
        // ExecPlan, what jobd tells jobd-cgexec (CJobdExec parses it).
        .target(
            name: "JobdDefinition",
            dependencies: ["JobdSystem", "JobdUnitFile", "JobdCalendar", "CJobdExec"],
            swiftSettings: swiftSettings
        ),
        // The configuration: jobd.conf's settings, the directory of job files and its cache. It
        // re-exports the three modules above, so that importing JobdConfig still sees all of them.
        .target(
            name: "JobdConfig",
            dependencies: ["JobdSystem", "JobdUnitFile", "JobdDefinition", "JobdCalendar"],
            swiftSettings: swiftSettings
        ),
        // Users' jobs: the user policy over the key table, the users' job store, users.allow/deny,
        // cron.allow/deny and crontab's spool.
        .target(name: "JobdPolicy", dependencies: ["JobdConfig", "JobdDefinition", "JobdUnitFile", "JobdSystem"], swiftSettings: swiftSettings),
        // Definitions -> owners and timers, generations, scheduling decisions.
        .target(
            name: "JobdScheduler",
            dependencies: [
                "JobdTimers", "JobdConfig", "JobdCalendar", "JobdLogging", "JobdLocks",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // getxattr, which Swift's Glibc module leaves out; imported by JobdRunner alone.
        .systemLibrary(name: "CXattr"),
        // eventfd, which Swift's Glibc module leaves out; imported by JobdProcess and JobdRunner.
        .systemLibrary(name: "CEventfd"),
        // bpf(2), reached only through syscall(2): whether BPF device programs load; JobdRunner alone.
        .systemLibrary(name: "CBPFDevices"),
        // epoll, pidfd_open, pipe2, and the runs' own spawn (clone3 into the run's cgroup, its limits
        // set in the child: spawn.c); imported by JobdProcess and JobdRunner.
        .target(name: "CSpawn"),
        // Definitions -> processes.
        // One run, from its Assert…= to its run.exit, as a pure state machine (RunLifecycle): what
        // JobdRunner performs, step by step, and tests drive event by event without processes.
        .target(name: "JobdRunLifecycle", dependencies: ["JobdConfig", "JobdLogging"], swiftSettings: swiftSettings),
        // Processes and their pipes, knowing nothing of jobs: the spawn (CSpawn), the reactor that
        // reads every run's output and end on one epoll set, the helpers' processes (mail).
        .target(name: "JobdProcess", dependencies: ["JobdConfig", "JobdSystem", "JobdLocks", "CEventfd", "CSpawn"], swiftSettings: swiftSettings),
        .target(
            name: "JobdRunner",
            dependencies: [
                "JobdProcess", "JobdRunLifecycle", "JobdConfig", "JobdSystem", "JobdLogging", "JobdTimers", "JobdLocks", "CXattr", "CEventfd", "CBPFDevices", "CSpawn",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // The trampoline that puts a run's process into its cgroup, sets its attributes and sandbox and
        // switches its credentials before the job's command runs: a thin main over CJobdExec (plain C,
        // no Swift), reading an exec plan on stdin; installed beside jobd, in libexec.
        .executableTarget(name: "jobd-cgexec", dependencies: ["CJobdExec"]),
        // The unit's main process before jobd (issue 36): jobd's parent, and the parent of the runs a
        // jobd leaves behind on a restart, whose ends it keeps for the next jobd. Plain C, no Swift.
        .executableTarget(name: "jobd-keeper"),
        // libsystemd, bound for exactly one Swift target: SystemdKit.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "SystemdKit",
            dependencies: ["CSystemd"],
            swiftSettings: swiftSettings
        ),
        // Structured events -> the journal (or readable lines on stderr).
        .target(
            name: "JobdLogging",
            dependencies: [
                "SystemdKit", "JobdLocks", "JobdSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // accept4, pipe2 and POLLRDHUP, which Swift's Glibc module leaves out; imported by JobdControl alone.
        .systemLibrary(name: "CSocket"),
        // The commit of the build (scripts/version), imported by JobctlCommands alone.
        .systemLibrary(name: "CBuildInfo"),
        // The control socket: its protocol, jobd's server and jobctl's client.
        .target(name: "JobdControl", dependencies: ["CSocket", "CBuildInfo", "JobdLocks", "JobdSystem"], swiftSettings: swiftSettings),
        // libpq, PostgreSQL's own client (Debian's libpq-dev), bound for exactly one Swift target: JobdFleet.
        .systemLibrary(
            name: "CLibpq",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // Fleet-wide jobs: claims, leases and heartbeats in PostgreSQL, and the fleet audit.
        .target(
            name: "JobdFleet",
            dependencies: [
                "CLibpq", "JobdConfig", "JobdCalendar", "JobdLocks", "JobdLogging", "JobdDefinition", "JobdSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runs that outlive a jobd (issue 36): what a handover writes of each run in flight, what the
        // keeper kept of the ones that ended, and the decisions (stop or hand over; adopt, finish or
        // abandon). Pure, no I/O.
        .target(name: "JobdHandover", dependencies: ["JobdConfig", "JobdScheduler"], swiftSettings: swiftSettings),
        // malloc_trim and mallopt, which Swift's Glibc module leaves out; imported by JobdHost and JobdDaemon.
        .systemLibrary(name: "CMalloc"),
        // What jobd watches of its host and does to it, each on a thread or timer of its own: inotify
        // (InotifyThread, TimeZoneWatch), the watchdog's heartbeat, malloc's arenas and trims.
        .target(
            name: "JobdHost",
            dependencies: ["CMalloc", "JobdLocks", "JobdTimers", "JobdSystem", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings
        ),
        // MetricsFile=: the Prometheus text of jobd's and its jobs' metrics, and when it is rewritten.
        .target(
            name: "JobdMetrics",
            dependencies: [
                "JobdCalendar", "JobdConfig", "JobdControl", "JobdScheduler", "JobdTimers",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // jobd's state on disk: Persistent= stamps, the jobs' histories, the boot id, disabled jobs,
        // the records of runs in flight (runs/) and what jobd-keeper kept of the runs that ended.
        .target(
            name: "JobdState",
            dependencies: [
                "JobdCalendar", "JobdConfig", "JobdHandover", "JobdLocks", "JobdLogging", "JobdRunner", "JobdScheduler", "JobdSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "JobdDaemon",
            dependencies: [
                "JobdHost", "JobdMetrics", "CMalloc", "JobdConfig", "JobdPolicy", "JobdCalendar", "JobdScheduler", "JobdRunner", "JobdProcess", "JobdLogging", "JobdTimers", "SystemdKit",
                "JobdLocks", "JobdHandover", "JobdState", "JobdSystem",
                "JobdControl", "JobdFleet",
                // crontab(1)'s check of a crontab and Debian's header, on the control socket; cron mode's
                // reading of cron's files (CronTable).
                "JobdImport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // jobd's journal entries -> a lifecycle audit report: pure, no I/O. JobdControl only for
        // JSONWriter, jobd's one JSON writer (`jobctl audit --json`).
        .target(name: "JobdAudit", dependencies: ["JobdLogging", "JobdCalendar", "JobdControl"], swiftSettings: swiftSettings),
        // crontabs and systemd timers -> job files: pure, no I/O (jobctl import reads and writes).
        .target(
            name: "JobdImport",
            dependencies: ["JobdConfig", "JobdPolicy", "JobdCalendar", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: swiftSettings
        ),
        // What jobctl shows, rendered from what jobd or the journal answered: the why report, the list,
        // security and calendar tables, schedules, log lines; pure, no socket and no journal.
        .target(
            name: "JobctlReports",
            dependencies: [
                "JobdConfig", "JobdCalendar", "JobdControl", "SystemdKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "JobctlCommands",
            dependencies: [
                "JobctlReports", "JobdSystem", "CBuildInfo", "JobdConfig", "JobdPolicy", "JobdCalendar", "JobdControl", "JobdAudit", "SystemdKit", "JobdImport", "JobdFleet",
                // jobctl plan without a running jobd plans with the scheduler's own rules.
                "JobdScheduler", "JobdTimers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // jobd, and jobctl when started by that name: the shipped jobctl is a link to jobd (one
        // binary, half the package). The `jobctl` target builds jobctl alone, for development and tests.
        .executableTarget(
            name: "jobd",
            dependencies: [
                "JobdDaemon", "JobdHost", "JobdLogging", "JobdControl", "SystemdKit", "JobctlCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "jobctl", dependencies: ["JobctlCommands"], swiftSettings: swiftSettings),
        // The tests' own build of jobd, which the integration tests start when they inject a fault
        // (a stalled main loop, a slow reload or account look-up, a skewed clock): the shipped jobd
        // has no switch for any of them (issue 39).
        .executableTarget(
            name: "jobd-faults",
            dependencies: ["JobdDaemon", "JobdControl", "JobdLogging", .product(name: "Logging", package: "swift-log")],
            path: "Tests/jobd-faults", swiftSettings: swiftSettings
        ),
        // The tests, one target per module (and the integration tests, which start the built jobd).
        // pidfd_open, which Swift's Glibc module leaves out; imported by JobdTestKit alone.
        .systemLibrary(name: "CPidfd"),
        // Test doubles shared by more than one test target.
        .target(
            name: "JobdTestKit",
            dependencies: ["CPidfd", "JobdTimers", "JobdLocks", "JobdConfig", "JobdSystem", "JobdRunner", "SystemdKit", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "JobdTimersTests", dependencies: ["JobdTimers", "JobdTestKit"], swiftSettings: swiftSettings),
        .testTarget(name: "JobdCalendarTests", dependencies: ["JobdCalendar", "JobdLocks"], swiftSettings: swiftSettings),
        .testTarget(
            name: "JobdConfigTests",
            dependencies: ["JobdConfig", "JobdDefinition", "JobdUnitFile", "JobdSystem", "JobdPolicy", "JobdTestKit", "CJobdExec"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobdSchedulerTests",
            dependencies: [
                "JobdScheduler", "JobdConfig", "JobdLogging", "JobdTimers", "JobdTestKit",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobdRunnerTests",
            dependencies: [
                "JobdRunner", "JobdProcess", "JobdConfig", "JobdCalendar", "JobdLogging", "JobdTimers", "JobdLocks", "JobdTestKit", "CJobdExec",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "SystemdKitTests", dependencies: ["SystemdKit", "JobdLogging", "JobdTestKit"], swiftSettings: swiftSettings),
        .testTarget(name: "JobdHandoverTests", dependencies: ["JobdHandover", "JobdConfig"], swiftSettings: swiftSettings),
        .testTarget(name: "JobdControlTests", dependencies: ["JobdControl", "JobdTestKit"], swiftSettings: swiftSettings),
        .testTarget(
            name: "JobdFleetTests",
            dependencies: ["JobdFleet", "JobdConfig", "JobdCalendar", "JobdTestKit"],
            swiftSettings: swiftSettings
        ),
        // The daemon's main loop, driven event by event on a manual timer queue with test doubles.
        .testTarget(
            name: "JobdDaemonTests",
            dependencies: [
                "JobdDaemon", "JobdHost", "JobdMetrics", "JobdScheduler", "JobdConfig", "JobdPolicy", "JobdCalendar", "JobdRunner", "JobdControl", "JobdFleet",
                "JobdTimers", "JobdTestKit", "SystemdKit", "JobdHandover", "JobdState",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobdAuditTests",
            dependencies: ["JobdAudit", "JobdLogging", "JobdTestKit", "SystemdKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobdImportTests",
            dependencies: ["JobdImport", "JobdConfig", "JobdDefinition", "JobdUnitFile", "JobdCalendar", "JobdRunner", "JobdTestKit", "JobctlCommands", "JobctlReports",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobctlCommandsTests",
            dependencies: ["JobctlCommands", "JobctlReports", "JobdTestKit", "SystemdKit", "JobdCalendar"],
            swiftSettings: swiftSettings
        ),
        // The manual pages (docs/man) against the code: every key, every jobctl command and option; and
        // the sources' shape (issue 37): no module over 4,000 lines, no function over 100.
        .testTarget(
            name: "ManPageTests",
            dependencies: ["JobdConfig", "JobdDefinition", "JobdUnitFile", "JobctlCommands", "JobdTestKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JobdIntegrationTests",
            dependencies: ["JobdTestKit", "SystemdKit", "JobdScheduler", "JobdConfig", "JobdTimers", "JobdLogging", "JobdHandover",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Benchmarks and fuzzing.
        // mallinfo2, which Swift's Glibc module leaves out; imported by jobd-benchmarks alone.
        .systemLibrary(name: "CMallocInfo", path: "Benchmarks/CMallocInfo"),
        // The benchmarks of the README's Performance section (scripts/benchmark), and the soak run.
        .executableTarget(
            name: "jobd-benchmarks",
            dependencies: [
                "CMallocInfo", "CSpawn", "JobdTimers", "JobdCalendar", "JobdConfig", "JobdTestKit", "JobdFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/JobdBenchmarks",
            swiftSettings: swiftSettings
        ),
        // The fuzz targets (scripts/fuzz builds them with -sanitize=fuzzer); built normally, it
        // replays inputs without libFuzzer.
        .executableTarget(
            name: "jobd-fuzz",
            dependencies: ["JobdConfig", "JobdCalendar", "JobdControl", "JobdAudit"],
            path: "Fuzz/JobdFuzz",
            swiftSettings: swiftSettings
        ),
    ]
)
