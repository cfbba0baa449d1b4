import Foundation
import JobdConfig
import Testing

/// `TasksMax=`, `DefaultTasksMax=` and `RunsTasksMax=` read as systemd 252 reads `TasksMax=`
/// (issue 26: runs cannot starve jobd).
struct TasksMaxTests {
    @Test(arguments: [
        ("20", TasksMax.count(20)), ("infinity", .infinity), ("15%", .permyriad(1_500)), ("12.5%", .permyriad(1_250)),
        ("0.01%", .permyriad(1)), ("100%", .permyriad(10_000)), ("125‰", .permyriad(1_250)), ("12.5‰", .permyriad(125)),
    ])
    func aTaskLimitIsANumberAShareOrInfinity(text: String, limit: TasksMax) {
        #expect(TasksMax.parse(text) == limit)
    }

    @Test(arguments: ["0", "0%", "-1", "+5", "101%", "15", "1.5.0%", "%", ".5%", "12.%", "12.345%", "1 0", "max", "5k", "0x10"])
    func anythingElseIsNot(text: String) {
        #expect(text == "15" ? TasksMax.parse(text) == .count(15) : TasksMax.parse(text) == nil, "\(text)")
    }

    @Test func aShareIsOfTheSystemsMaximumAsSystemdCountsIt() {
        // The least of threads-max and pid_max less one, and never above 4194303.
        #expect(TasksMax.systemMaximum(threadsMax: 95_000, pidMax: 32_768) == 32_767)
        #expect(TasksMax.systemMaximum(threadsMax: 20_000, pidMax: 4_194_304) == 20_000)
        #expect(TasksMax.systemMaximum(threadsMax: nil, pidMax: nil) == 4_194_303)
        #expect(TasksMax.permyriad(1_500).resolved(systemMaximum: 32_767) == 4_915)
        #expect(TasksMax.permyriad(1).resolved(systemMaximum: 100) == 1, "a share never rounds down to no task")
        #expect(TasksMax.count(20).resolved(systemMaximum: 10) == 20)
        #expect(TasksMax.infinity.resolved(systemMaximum: 10) == nil)
        #expect(TasksMax.pidsMaxText(nil) == "max" && TasksMax.pidsMaxText(7) == "7")
        // This machine's, read whole (a sysctl file gives nothing to a read at an offset).
        func sysctl(_ name: String) -> UInt64? {
            (try? String(contentsOfFile: "/proc/sys/kernel/" + name, encoding: .utf8)).flatMap { UInt64($0.dropLast()) }
        }
        #expect(TasksMax.currentSystemMaximum() == TasksMax.systemMaximum(threadsMax: sysctl("threads-max"), pidMax: sysctl("pid_max")))
    }

    /// A user's `TasksMax=` is held to `DefaultTasksMax=` (issue 37): compared as tasks, whatever
    /// the forms.
    @Test func aLimitIsAtMostAnotherAsTasks() {
        #expect(TasksMax.count(1_500).isAtMost(.permyriad(1_500), systemMaximum: 10_000))
        #expect(!TasksMax.count(1_501).isAtMost(.permyriad(1_500), systemMaximum: 10_000))
        #expect(!TasksMax.infinity.isAtMost(.count(10), systemMaximum: 10_000))
        #expect(TasksMax.infinity.isAtMost(.infinity, systemMaximum: 10_000) && TasksMax.count(.max).isAtMost(.infinity, systemMaximum: 1))
        #expect(TasksMax.permyriad(1_400).isAtMost(.count(1_400), systemMaximum: 10_000))
    }

    @Test func itReadsBackAsWritten() {
        for text in ["20", "infinity", "15%", "12.5%", "0.01%", "12.05%"] {
            #expect(TasksMax.parse(text)?.description == text, "\(text)")
        }
    }

    @Test func aJobFileTakesTasksMaxAndSaysWhatIsWrong() throws {
        let good = try JobFileReader.read(name: "fork", path: "/j/fork.job", text: "[Job]\nExecStart=/bin/true\nTasksMax=20\n").get()
        #expect(good.tasksMax == .count(20))
        #expect(good.tasksMaxLine == 3)
        let reset = try JobFileReader.read(name: "fork", path: "/j/fork.job", text: "[Job]\nExecStart=/bin/true\nTasksMax=20\nTasksMax=\n").get()
        #expect(reset.tasksMax == nil, "an empty value resets to jobd.conf's DefaultTasksMax=")
        let bad = JobFileReader.read(name: "fork", path: "/j/fork.job", text: "[Job]\nExecStart=/bin/true\nTasksMax=lots\n")
        guard case .failure(let errors) = bad else { Issue.record("TasksMax=lots was accepted"); return }
        #expect(errors.errors.map(\.description) == [
            "/j/fork.job:3: error: TasksMax=: 'lots' is not a task limit\n"
                + "/j/fork.job:3: note: write a number of tasks such as 512, a share of the system's maximum such as 15%, or infinity",
        ])
    }

    @Test func jobdConfSetsTheDefaultPerRunAndTheLimitOfAllRuns() throws {
        let defaults = try DaemonSettings.read(path: "/c/jobd.conf", text: "[Daemon]\n").get()
        #expect(defaults.defaultTasksMax == .permyriad(1_500), "systemd's DefaultTasksMax=15%")
        #expect(defaults.runsTasksMax == nil, "derived from jobd's own limit")
        let set = try DaemonSettings.read(path: "/c/jobd.conf", text: "[Daemon]\nDefaultTasksMax=64\nRunsTasksMax=50%\n").get()
        #expect(set.defaultTasksMax == .count(64))
        #expect(set.runsTasksMax == .permyriad(5_000))
        guard case .failure(let errors) = DaemonSettings.read(path: "/c/jobd.conf", text: "[Daemon]\nRunsTasksMax=0\n") else {
            Issue.record("RunsTasksMax=0 was accepted")
            return
        }
        #expect(errors.errors.first?.line == 2)
    }
}
