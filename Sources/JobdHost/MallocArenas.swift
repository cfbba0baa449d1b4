import CMalloc

/// glibc's malloc arenas, bounded for a daemon whose memory must stay steady across reloads.
///
/// glibc gives threads that contend for the heap arenas of their own, up to 8 per core. A reload
/// frees the previous generation's definitions and owners into whichever arenas the threads that
/// made them used, and memory freed in one arena serves only that arena's threads: the resident
/// size drifts up with every reload, and `malloc_trim` returns only whole free pages. With few
/// arenas, what a reload frees serves the next reload.
///
/// Two, not one: a start or reload reads and parses job files on every core, about 40 `malloc`s a
/// file, and with one arena the readers queued for its lock (`futex` about 12% of the CPU time of a
/// start at 100,000 jobs). With two, that start took 1.10 to 1.79 s (median about 1.25 s) against
/// 1.14 to 2.75 s (median about 1.5 s) alternated with one, and RSS after 1,000 reloads stayed
/// within 1 MiB of RSS after 10 (+616 and +712 KiB; +692 KiB with one). See docs/performance.md.
package enum MallocArenas {
    /// How many arenas jobd allows: the main heap and one more.
    package static let jobdLimit: Int32 = 2

    /// Bounds the number of arenas to `limit` (`mallopt(M_ARENA_MAX, limit)`). Call it first thing
    /// at start, before threads allocate: arenas made before the call stay. Returns `false` when
    /// glibc refused the setting (the process then runs with glibc's default).
    @discardableResult
    package static func bound(to limit: Int32 = jobdLimit) -> Bool {
        mallopt(M_ARENA_MAX, limit) == 1
    }
}
