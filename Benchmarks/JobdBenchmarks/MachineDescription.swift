import Foundation

/// The machine a run measured: what the README's table must say next to its figures.
enum MachineDescription {
    static func print(_ report: Report) {
        report.section("Machine")
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        report.figure("cores (online)", "\(ProcessInfo.processInfo.activeProcessorCount)")
        report.figure("CPU", model)
        report.figure("memory", Format.bytes(Double(ProcessInfo.processInfo.physicalMemory)))
        report.figure("kernel", ProcessInfo.processInfo.operatingSystemVersionString)
        report.figure("date (UTC)", ISO8601DateFormatter().string(from: Date()))
    }
}
