import JobdCalendar
import JobdConfig
import JobdTestKit
import Testing

/// What 100,000 job definitions share or leave out to fit in memory (issue 19) must not change what
/// a definition says, nor how definitions compare.
@Suite struct SharedDefinitionPartsTests {
    /// The address of the array's elements: two arrays that share one buffer have the same.
    func buffer(_ triggers: [Trigger]) -> UnsafeRawPointer? {
        triggers.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
    }

    @Test(arguments: [30, 500])
    func jobsThatWriteTheSameTriggerShareItsList(files: Int) throws {
        let values = ["OnCalendar=*-*-* 04:00:00", "Cron=30 2 * * *", "OnCalendar=Mon..Fri 09:00 Europe/Berlin"]
        var jobs: [String: String] = [:]
        for index in 0..<files {
            jobs["job\(1_000 + index)"] = "[Job]\nExecStart=/bin/echo \(index)\n\(values[index % 3])\n"
        }
        jobs["both"] = "[Job]\nExecStart=/bin/true\n\(values[0])\n\(values[1])\n"
        let config = try TemporaryConfiguration(jobs: jobs)
        let configuration = JobDirectory(path: config.path).read()
        #expect(configuration.broken.isEmpty)
        #expect(configuration.jobs.count == files + 1)

        let expected: [Trigger] = [
            .calendar(try CalendarSpec.parse("*-*-* 04:00:00")), .cron(try CronSpec.parse("30 2 * * *")),
            .calendar(try CalendarSpec.parse("Mon..Fri 09:00 Europe/Berlin")),
        ]
        for job in configuration.jobs where job.name != "both" {
            #expect(job.triggers == [expected[(Int(job.name.dropFirst(3))! - 1_000) % 3]], "\(job.name)")
        }
        #expect(configuration.jobs.first { $0.name == "both" }?.triggers == [expected[0], expected[1]])
        // Read on up to 4 threads a core, each keeping its own lists: far fewer lists than jobs.
        let lists = Set(configuration.jobs.filter { $0.name != "both" }.map { buffer($0.triggers) })
        #expect(lists.count <= (files > 64 ? 3 * 64 : 3), "\(lists.count) lists for \(files) jobs")
        #expect(files <= 64 ? lists.count == 3 : lists.count < files / 2)
    }

    @Test func uncommonSettingsCompareAsBeforeWhetherSetOrLeftAtTheirDefaults() throws {
        let text = "[Job]\nExecStart=/bin/true\nOnStartupSec=1h\n"
        let plain = try JobFileReader.read(name: "job", path: "/j/job.job", text: text).get()
        var changed = plain
        changed.restart.limit = 9
        changed.onFailure = ["notify"]
        changed.randomizedDelay = .seconds(5)
        #expect(changed != plain)
        #expect(changed.restart.limit == 9 && changed.onFailure == ["notify"] && changed.randomizedDelay == .seconds(5))
        #expect(plain.restart == RestartPolicy() && plain.onFailure.isEmpty, "a copy's change is its own")
        // Back to the defaults: equal again, with an equal hash.
        changed.restart.limit = RestartPolicy().limit
        changed.onFailure = []
        changed.randomizedDelay = .zero
        #expect(changed == plain)
        #expect(changed.hashValue == plain.hashValue)

        let read = try JobFileReader.read(
            name: "job", path: "/j/job.job",
            text: text + "RestartLimit=9\nOnFailure=notify\nRandomizedDelaySec=5\nWorkingDirectory=-/srv\nTimeoutStopSec=3\n").get()
        #expect(read.restart.limit == 9 && read.onFailure == ["notify"] && read.randomizedDelay == .seconds(5))
        #expect(read.workingDirectory?.path == "/srv" && read.workingDirectory?.optional == true && read.stopTimeout == .seconds(3))
        #expect(read.runtimeMax == .infinity && read.user == nil && read.environmentFiles.isEmpty)
    }

    @Test func aCommandKeepsItsTextAndReadsItsWordsFromIt() throws {
        let command = try ExecCommand.parse(#"-/bin/sh -c 'echo "$$HOME" ${DIR}' 100%% \x41"#)
        #expect(command.text == #"-/bin/sh -c 'echo "$$HOME" ${DIR}' 100%% \x41"#)
        #expect(command.ignoresFailure && command.executable == "/bin/sh")
        #expect(command.words == [
            [.literal("/bin/sh")], [.literal("-c")], [.literal(#"echo "$HOME" "#), .variable("DIR")], [.literal("100%")], [.literal("A")],
        ])
        #expect(command.argv(environment: ["DIR": "/srv"]) == ["/bin/sh", "-c", #"echo "$HOME" /srv"#, "100%", "A"])
        let again = try ExecCommand.parse(command.text)
        #expect(again == command && again.hashValue == command.hashValue)
    }
}
