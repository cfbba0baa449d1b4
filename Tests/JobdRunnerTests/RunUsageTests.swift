import Foundation
@testable import JobdRunner
import Testing

/// What a run used, in the words and fields of `run.exit`.
struct RunUsageTests {
    @Test func cpuTimeReadsAsSystemdPrintsIt() {
        #expect(RunUsage.cpuTime(0) == "0")
        #expect(RunUsage.cpuTime(999) == "0")
        #expect(RunUsage.cpuTime(45_300) == "45ms")
        #expect(RunUsage.cpuTime(1_234_567) == "1.234s")
        #expect(RunUsage.cpuTime(1_200_000) == "1.2s")
        #expect(RunUsage.cpuTime(2_000_000) == "2s")
        #expect(RunUsage.cpuTime(123_456_000) == "2min 3.456s")
        #expect(RunUsage.cpuTime(3_720_000_000) == "1h 2min")
    }

    @Test func bytesReadAsSystemdPrintsThem() {
        #expect(RunUsage.bytes(512) == "512B")
        #expect(RunUsage.bytes(1024) == "1.0K")
        #expect(RunUsage.bytes(12_910_592) == "12.3M")
        #expect(RunUsage.bytes(1 << 30) == "1.0G")
        #expect(RunUsage.bytes(UInt64(1.99 * Double(1 << 20))) == "1.9M")
    }

    @Test func theSummaryAndFieldsLeaveOutAMissingPeak() {
        var usage = RunUsage(cpuUSec: 1_234_567, userUSec: 1_000_000, systemUSec: 234_567, memoryPeak: 12_910_592)
        #expect(usage.summary == "Consumed 1.234s CPU time, 12.3M memory peak")
        #expect(usage.fields == ["JOBD_CPU_USEC": "1234567", "JOBD_CPU_USER_USEC": "1000000", "JOBD_CPU_SYSTEM_USEC": "234567",
                                 "JOBD_MEMORY_PEAK": "12910592"])
        usage.memoryPeak = nil
        #expect(usage.summary == "Consumed 1.234s CPU time")
        #expect(usage.fields["JOBD_MEMORY_PEAK"] == nil)
    }

    /// A cgroup's files as the kernel has them; the memory ones are read only where the unified
    /// hierarchy has the memory controller (a hybrid host's has not: no file, no open).
    @Test func theMemoryFilesAreReadOnlyWhereTheUnifiedHierarchyHasThem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-usage-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = ["cpu.stat": "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n", "memory.peak": "4096\n",
                     "memory.events": "low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n"]
        for (name, text) in files { try text.write(toFile: directory + "/" + name, atomically: false, encoding: .utf8) }
        let withMemory = RunCgroup(directory: directory, path: "/jobd/runs/run-1")
        #expect(withMemory.usage == RunUsage(cpuUSec: 1500, userUSec: 1000, systemUSec: 500, memoryPeak: 4096))
        #expect(withMemory.oomKills == 2)
        let without = RunCgroup(directory: directory, path: "/jobd/runs/run-1", hasUnifiedMemory: false)
        #expect(without.usage == RunUsage(cpuUSec: 1500, userUSec: 1000, systemUSec: 500, memoryPeak: nil))
        #expect(without.oomKills == 0)
    }
}
