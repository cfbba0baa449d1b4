/// The triggers of one read of the job files, each made once however many files write it: 100,000
/// jobs typically share a few distinct `OnCalendar=` and `Cron=` values, and a job with one trigger
/// (most jobs) then gets the list kept for the first file that wrote it, neither parsed again nor
/// stored again (issue 19: a parsed calendar trigger list held 0.4 KB per job).
///
/// One per read, not kept beyond it: a zone a calendar event names is read again at the next read
/// (``JobDirectory/read(using:)``). Not thread-safe: each thread of a parallel read has its own.
package final class TriggerInterner {
    private struct Written: Hashable {
        var key: JobKey
        var value: String
    }

    private var lists: [Written: [Trigger]] = [:]

    package init() {}

    /// The list of the one trigger that `key=value` makes: the list kept for an earlier file that
    /// wrote the same, or else what `make` makes of it, kept for the next. An error is not kept.
    func list<Failure: Error>(
        _ key: JobKey, _ value: String, make: () throws(Failure) -> Trigger
    ) throws(Failure) -> [Trigger] {
        let written = Written(key: key, value: value)
        if let list = lists[written] { return list }
        let list = [try make()]
        lists[written] = list
        return list
    }
}
