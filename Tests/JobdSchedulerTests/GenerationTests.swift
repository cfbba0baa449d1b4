import JobdConfig
import JobdScheduler
import Testing

/// The configuration snapshot the scheduler and the run admission share.
@Suite struct GenerationTests {
    static func job(_ name: String) -> JobDefinition {
        JobDefinition(name: name, path: "/etc/jobd/jobs.d/\(name).job", triggers: [.unitActive(.seconds(60))],
                      command: try! ExecCommand.parse("/bin/true"))
    }

    @Test func everyJobIsFoundByNameAndNoOtherIs() {
        let names = (0..<257).map { "job-\($0)" }.sorted()
        let generation = Generation(jobs: names.map(Self.job))
        for name in names { #expect(generation.definition(of: name)?.name == name) }
        for missing in ["", "job", "job-", "job-2570", "zzz", "a"] { #expect(generation.definition(of: missing) == nil) }
    }

    @Test func jobsInFileNameOrderAreKeptInNameOrder() {
        // `a-b.job` sorts before `a.job`, but the job `a` before `a-b`.
        let generation = Generation(jobs: [Self.job("a-b"), Self.job("a"), Self.job("b")])
        #expect(generation.jobs.map(\.name) == ["a", "a-b", "b"])
        #expect(generation.definition(of: "a-b")?.name == "a-b")
        #expect(generation.definition(of: "a")?.name == "a")
    }

    @Test func brokenFilesAreKeptByJobName() {
        let broken = JobdConfiguration.BrokenJob(
            name: "c", path: "/etc/jobd/jobs.d/c.job", errors: [ConfigError(file: "/etc/jobd/jobs.d/c.job", line: 1, message: "bad")])
        let generation = Generation(jobs: [Self.job("a")], broken: [broken], brokenSummary: "1 broken file(s): c.job")
        #expect(generation.broken["c"] == broken)
        #expect(generation.definition(of: "c") == nil, "a broken file is not a job")
    }

    /// A reload's read: a broken file keeps its job's previous definition, a new broken file adds
    /// nothing, a deleted file removes its job, and a broken jobd.conf keeps the settings.
    @Test func aReadKeepsWhatItsBrokenFilesHadAndDropsWhatIsGone() {
        var previousA = Self.job("a")
        previousA.description = "before"
        let previous = Generation(jobs: [previousA, Self.job("b"), Self.job("gone")], settings: DaemonSettings(maxConcurrentRuns: 3))
        func broken(_ name: String) -> JobdConfiguration.BrokenJob {
            .init(name: name, path: "/etc/jobd/jobs.d/\(name).job", errors: [ConfigError(file: "/etc/jobd/jobs.d/\(name).job", line: 1, message: "bad")])
        }
        var configuration = JobdConfiguration(jobs: [Self.job("b"), Self.job("c")], broken: [broken("a"), broken("new")], settings: nil)
        let next = Generation(configuration, after: previous)
        #expect(next.jobs.map(\.name) == ["a", "b", "c"])
        #expect(next.definition(of: "a")?.description == "before")
        #expect(Set(next.broken.keys) == ["a", "new"])
        #expect(next.settings.maxConcurrentRuns == 3, "jobd.conf with errors (no settings read) keeps the settings")
        configuration.settings = DaemonSettings(maxConcurrentRuns: 1)
        #expect(Generation(configuration, after: previous).settings.maxConcurrentRuns == 1)
    }
}
