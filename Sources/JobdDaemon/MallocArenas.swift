import CMalloc

/// glibc's malloc arenas, bounded for a daemon whose memory must stay steady across reloads.
///
/// glibc gives threads that contend for the heap arenas of their own, up to 8 per core. A reload
/// frees the previous generation's definitions and owners into whichever arenas the threads that
/// made them used, and memory freed in one arena serves only that arena's threads: the resident
/// size drifts up with every reload, and `malloc_trim` returns only whole free pages. With one
/// arena, every thread allocates from and frees into the same heap, and what a reload frees serves
/// the next reload. jobd's threads (the main loop, the timing thread, a few runners) are few and
/// allocate little at a time, so they do not contend for it noticeably.
package enum MallocArenas {
    /// How many arenas jobd allows: one, the main heap.
    package static let jobdLimit: Int32 = 1

    /// Bounds the number of arenas to `limit` (`mallopt(M_ARENA_MAX, limit)`). Call it first thing
    /// at start, before threads allocate: arenas made before the call stay. Returns `false` when
    /// glibc refused the setting (the process then runs with glibc's default).
    @discardableResult
    package static func bound(to limit: Int32 = jobdLimit) -> Bool {
        mallopt(M_ARENA_MAX, limit) == 1
    }
}
