import Glibc
package import JobdConfig
package import JobdRunner

extension InMemoryRunDriver {
    private var script: Script { stateScript() }

    package func resolveAccount(_ definition: JobDefinition) async -> Result<Account?, RunPreparationError> {
        record("resolveAccount")
        if let failure = script.accountFailure { return .failure(RunPreparationError(description: failure)) }
        return .success(script.account)
    }

    package func prepare(
        _ definition: JobDefinition, account: Account?, runID: UInt64, invocationID: String, context: [String: String]
    ) async -> Result<SpawnConfiguration, RunPreparationError> {
        record("readEnvironment")
        if let failure = script.environmentFailure { return .failure(RunPreparationError(description: failure)) }
        let environment = JobRunner.environment(for: definition, inheritedLanguage: nil, account: account, files: [], runID: runID,
                                                invocationID: invocationID, context: context)
        return .success(SpawnConfiguration(argv: definition.command.argv(environment: environment), environment: environment, account: account))
    }

    package func makeCgroup(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, fields: [String: String], user: UInt32?
    ) -> Result<(cgroup: RunCgroup?, tasksRlimit: ResourceLimit?), RunPreparationError> {
        record("makeCgroup")
        if let failure = script.cgroupFailure { return .failure(RunPreparationError(description: failure)) }
        guard script.cgroups else { return .success((nil, nil)) }
        return .success((RunCgroup(directory: "/sys/fs/cgroup/runs/run-\(invocationID)", path: "/runs/run-\(invocationID)"), nil))
    }

    package func makePrivateTmp(job: String) -> Result<PrivateTmp, RunPreparationError> {
        record("makePrivateTmp")
        if let failure = script.privateTmpFailure { return .failure(RunPreparationError(description: failure)) }
        return .success(PrivateTmp(tmp: "/tmp/jobd-private-\(job)", varTmp: "/var/tmp/jobd-private-\(job)"))
    }

    /// The process's pid is 1000 + `runID`; it writes its output once its start is acknowledged,
    /// and runs until the test or a signal ends it.
    package func spawn(
        _ configuration: SpawnConfiguration, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, reports: RunProcessReports
    ) {
        record("spawn")
        if let failure = script.spawnFailure { return reports.ended(.failure(RunPreparationError(description: failure))) }
        let output = script.output
        reports.started(Int32(1_000 + runID)) { [self] in
            for line in output { mailed?(line) }
            run(runID) { reports.ended(.success($0)) }
        }
    }

    /// An adopted process: no spawn; it is followed to its end at once (its end is its `end`'s).
    package func adopt(
        _ process: AdoptedProcess, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, reports: RunProcessReports
    ) {
        record("adopt")
        reports.started(process.pid) { reports.ended(.success(.unknown)) }
    }

    /// Never an OOM kill.
    package func watchOOMKills(in cgroup: RunCgroup, _ killed: @escaping @Sendable () -> Void) -> RunDriverWatch {
        .none
    }

    package func signal(runID: UInt64, _ signal: Int32) {
        record("signal \(signal)")
        deliver(signal, to: runID)
    }

    package func hasEnded(pid: Int32) -> Bool {
        record("hasEnded")
        return hasEnded(pid)
    }

    package func fenceStopped(_ fence: RunFence) -> (ended: Int64?, stopped: Bool) {
        record("checkFence")
        return (script.fenceStoppedAt, script.fenceStoppedAt != nil)
    }

    package func countLeftovers(group: Int32, cgroup: RunCgroup?) -> Int {
        record("countLeftovers")
        return script.leftovers
    }

    package func terminateLeftovers(group: Int32, cgroup: RunCgroup?, grace: TimeSpan) async -> Bool {
        record("terminateLeftovers")
        guard !script.leftoversGoOnTerm else { return true }
        return (try? await sleep(for: grace)) == nil
    }

    package func killLeftovers(group: Int32, cgroup: RunCgroup?) async {
        record("killLeftovers")
    }

    package func removeCgroup(_ cgroup: RunCgroup, keep: Bool) -> (usage: RunUsage?, oomKills: UInt64) {
        record(keep ? "keepCgroup" : "removeCgroup")
        return (script.usage, script.oomKills)
    }

    package func removePrivateTmp(_ privateTmp: PrivateTmp) async -> String? {
        record("removePrivateTmp")
        return nil
    }
}
