import Glibc
import JobdHandover
import JobdLogging
import JobdState
import SystemdKit

extension Daemon {
    /// Runs that outlive a restart (issue 36): under jobd-keeper, a SIGTERM that systemd sends for a
    /// restart hands the runs over (the bus says which job the unit has), and a starting jobd takes
    /// the pipes the jobd before left in the file descriptor store and the ends the keeper recorded.
    /// Without the keeper as parent, every SIGTERM stops the runs, as before.
    /// The control socket and the runtime lock go with the process: the next jobd binds the socket
    /// anew, and the lock is a lock on an open file.
    func wireHandover(_ context: inout DaemonContext, state: StateDirectory) {
        let environment = options.environment
        let keeper = KeeperDirectory(environment: environment, runtimeDirectory: options.runtimeDirectory)
        if KeeperDirectory.isParent(environment: environment) {
            context.stopKind = { StopKind.decide(jobType: ServiceManagerBus.jobTypeOfOwnUnit()) }
        }
        context.exitAfterHandover = {
            state.flushHistories()
            JobdLoggingSystem.shutdown()
            exit(0)
        }
        context.takeStoredDescriptors = { FileDescriptorStore.take() }
        context.storeDescriptor = { descriptor, name in FileDescriptorStore.store(descriptor, name: name) }
        context.keeperRecord = { keeper.take($0) }
        context.forgetKeeperRecords = { keeper.removeAll(except: $0) }
        context.keeperEnd = { await keeper.awaitEnd(of: $0) }
        context.processStartTicks = { KeeperDirectory.startTicks(of: $0) }
    }
}
