import Foundation
import JobdConfig
import JobdTestKit

/// The exec plan jobd would give `/bin/true` as a run with a set of sandboxing keys (through jobd's
/// own mapping and encoder), for scripts/benchmark-sandbox, which feeds the bytes to jobd-cgexec
/// run after run: `none`, `man-db` (man-db.service's keys) or `system-service`
/// (`SystemCallFilter=@system-service`).
enum SandboxPlan {
    static let keySets = ["none": "", "man-db": DebianUnitKeys.manDBSandbox, "system-service": "SystemCallFilter=@system-service\n"]

    static func write(keys: String, cgroup: String, privateTmp: String?) throws {
        guard let lines = keySets[keys] else { throw ValidationErrorText(description: "no key set \(keys): \(keySets.keys.sorted())") }
        let definition: JobDefinition
        switch JobFileReader.read(name: "benchmark", path: "benchmark.job", text: "[Job]\nExecStart=/bin/true\n" + lines) {
        case .success(let read): definition = read
        case .failure(let errors): throw ValidationErrorText(description: "\(keys): \(errors)")
        }
        var plan = ExecPlan()
        plan.cgroups = [cgroup]
        plan.attributes = definition.processAttributes.execAttributes
        let directories = privateTmp.map { $0.split(separator: ":", maxSplits: 1).map(String.init) }
        plan.sandbox = definition.sandbox.execSandbox(privateTmp: directories.flatMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        plan.keyring = true
        plan.environment = ["PATH": "/usr/bin:/bin"]
        plan.argv = ["/bin/true"]
        FileHandle.standardOutput.write(Data(plan.encoded()))
    }

    struct ValidationErrorText: Error, CustomStringConvertible {
        var description: String
    }
}
