import JobdConfig
import JobdTestKit
import Testing

/// Job files are read and parsed on every core; what comes out is what one file after another gives.
@Suite struct ParallelReadTests {
    @Test func manyFilesReadInParallelComeOutInNameOrderWithEveryError() throws {
        var jobs: [String: String] = [:]
        for index in 0..<500 {
            let name = "job" + String(1_000 + index)
            jobs[name] = index % 7 == 3
                ? "[Job]\nExecStart=/bin/true\nOnCalender=daily\n"  // broken on line 3
                : "[Job]\nExecStart=/bin/echo \(index)\nOnCalendar=*-*-* 00/2:\(index % 60):00\n"
        }
        let config = try TemporaryConfiguration(jobs: jobs)
        let configuration = JobDirectory(path: config.path).read()
        let broken = jobs.keys.filter { (Int($0.dropFirst(3))! - 1_000) % 7 == 3 }
        #expect(configuration.jobs.map(\.name) == jobs.keys.sorted().filter { !broken.contains($0) })
        #expect(configuration.broken.map(\.name) == broken.sorted())
        #expect(configuration.broken.allSatisfy { $0.errors.first?.line == 3 })
        #expect(configuration.jobs.first { $0.name == "job1011" }?.command.text == "/bin/echo 11")
        // The all-or-nothing load (jobctl check) reads the same way and reports every error.
        guard case .failure(let errors) = JobDirectory(path: config.path).load() else {
            Issue.record("the broken files were not reported")
            return
        }
        #expect(errors.errors.count == broken.count)
    }
}
