import Dispatch
import Glibc

extension Array where Element: Sendable {
    /// `transform` of every element, in order, worked out on every online core in contiguous
    /// chunks of at least `minimumChunk` elements (on the calling thread alone when there are
    /// fewer). For independent work whose cost is mostly waiting on the kernel, such as a `stat`
    /// of each of 10,000 files.
    package func concurrentMap<T: Sendable>(minimumChunk: Int, _ transform: @Sendable (Element) -> T) -> [T] {
        concurrentMap(minimumChunk: minimumChunk, chunkState: {}) { _, element in transform(element) }
    }

    /// As ``concurrentMap(minimumChunk:_:)``, with up to `chunksPerCore` chunks a core (uneven work
    /// then spreads over the cores as they come free), and a state that `chunkState` makes for each
    /// chunk and `transform` is given with each of its elements: what one thread may reuse across
    /// elements without a lock.
    package func concurrentMap<State, T: Sendable>(
        minimumChunk: Int, chunksPerCore: Int = 1, chunkState: @Sendable () -> State,
        _ transform: @Sendable (State, Element) -> T
    ) -> [T] {
        let count = self.count
        let cores = Swift.max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let chunks = Swift.min(count / Swift.max(1, minimumChunk), cores * Swift.max(1, chunksPerCore))
        guard chunks > 1 else {
            let state = chunkState()
            return map { transform(state, $0) }
        }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Each chunk initializes only its own slots.
            nonisolated(unsafe) let slots = buffer
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let state = chunkState()
                for index in chunk * count / chunks..<(chunk + 1) * count / chunks {
                    (slots.baseAddress! + index).initialize(to: transform(state, self[index]))
                }
            }
            initialized = count
        }
    }
}
