import Glibc

/// What `body` returns, a system call that fails with -1 and errno, called again for as long as a
/// signal interrupts it (EINTR): the one retry of the calls swift-system's `FileDescriptor` does not
/// cover (poll, epoll_wait, waitpid, sem_wait, recv and send). A loop that recomputes what it waits
/// for after an interruption (the time left) keeps its own.
package func retryingOnInterrupt<Result: BinaryInteger>(_ body: () -> Result) -> Result {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
