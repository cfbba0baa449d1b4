import CSpawn
import Glibc
package import JobdProcess
import JobdSystem
import SystemPackage

/// A helper jobd runs to its end for itself, not a job: sendmail (`MailTo=`), `rm -rf` of a run's
/// `PrivateTmp=`, jobd-cgexec reading a `User=` job's `EnvironmentFile=`s as the user. Started as
/// every run is (``ProcessSpawner``: an empty or fixed environment, `/` as its directory), `input` on
/// its stdin, what it writes read up to a limit. In place of swift-subprocess, whose 250 kB in the
/// binary served these three calls alone.
package struct HelperProcess: Sendable {
    package var exit: RunReactor.Exit
    package var output: [UInt8]
    package var error: [UInt8]

    /// Its stderr's text.
    package var errorText: String { String(decoding: error, as: UTF8.self) }

    /// As a shell would say it: `exited with status 1`, `killed by signal 9`.
    package var status: String {
        switch exit {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }

    /// Runs `executable` to its end. Blocking: call it on a thread of its own that ends afterwards
    /// (``SystemRunDriver/aside(_:)``), which blocks SIGPIPE here, so that a helper that stops
    /// reading its input ends the write with EPIPE, never jobd.
    package static func run(
        _ executable: String, arguments: [String], environment: [String: String], input: [UInt8] = [],
        outputLimit: Int = 0, errorLimit: Int = 4_096
    ) -> Result<HelperProcess, ProcessSpawner.Failure> {
        var pipe: [Int32] = [-1, -1]
        guard pipe2(&pipe, O_CLOEXEC) == 0 else { return .failure(ProcessSpawner.failure("cannot make a pipe", errno)) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let spawned: ProcessSpawner.Spawned
        switch ProcessSpawner.spawn(executable, arguments: arguments, environment: environment, workingDirectory: "/", input: pipe[0]) {
        case .failure(let failure):
            close(pipe[1])
            return .failure(failure)
        case .success(let started):
            spawned = started
        }
        _ = fcntl(pipe[1], F_SETFL, O_NONBLOCK)
        var helper = HelperProcess(exit: .exited(0), output: [], error: [])
        exchange(input, writer: pipe[1], readers: [spawned.standardOutput, spawned.standardError],
                 limits: [outputLimit, errorLimit], into: &helper)
        var status: Int32 = 0
        _ = retryingOnInterrupt { waitpid(spawned.pid, &status, 0) }
        close(spawned.pidfd)
        let signal = status & 0x7f
        helper.exit = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        return .success(helper)
    }

    /// Writes `input` and reads both pipes, as each is ready, until the input is written (or no
    /// longer read) and both pipes end; what is over a pipe's limit is read and dropped.
    private static func exchange(_ input: [UInt8], writer: Int32, readers: [Int32], limits: [Int], into helper: inout HelperProcess) {
        var writer = writer
        if input.isEmpty { close(writer); writer = -1 }
        var readers = readers, written = 0
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while writer >= 0 || readers.contains(where: { $0 >= 0 }) {
            var ready = readers.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } + [pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)]
            if retryingOnInterrupt({ poll(&ready, nfds_t(ready.count), -1) }) < 0 { break }
            if writer >= 0, ready[2].revents != 0 {
                // Nonblocking: EAGAIN (a full pipe) waits for the next poll; another error is a helper
                // that no longer reads its input.
                var done = false
                do {
                    written += try input[written...].withUnsafeBytes { try FileDescriptor(rawValue: writer).write($0) }
                    done = written == input.count
                } catch Errno.wouldBlock {
                } catch {
                    done = true
                }
                if done {
                    close(writer)
                    writer = -1
                }
            }
            for index in readers.indices where readers[index] >= 0 && ready[index].revents != 0 {
                // nil: nothing to read yet (EAGAIN); 0: the end, or a read that failed.
                guard let count = buffer.withUnsafeMutableBytes({ FileDescriptor(rawValue: readers[index]).readAvailable(into: $0) })
                else { continue }
                if count > 0 {
                    let room = max(0, limits[index] - (index == 0 ? helper.output.count : helper.error.count))
                    if index == 0 { helper.output += buffer.prefix(min(count, room)) } else { helper.error += buffer.prefix(min(count, room)) }
                } else {
                    close(readers[index])
                    readers[index] = -1
                }
            }
        }
        for reader in readers where reader >= 0 { close(reader) }
        if writer >= 0 { close(writer) }
    }
}
