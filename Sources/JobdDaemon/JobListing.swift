import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdRunner
import JobdScheduler
import JobdTimers

/// A `list` reply: every job and every job file with errors, by next elapse, then by name.
///
/// Taken from the loop at once: the sources (copies of its tables) and what each owner says
/// (``StatusView/OwnerFacts``). Sorting, making the statuses and writing them as JSON then happen
/// on the thread that serves the client, in parts on every core: at 10,000 jobs, making the
/// reply on the loop kept it busy for about 25 ms, and timers that fell due meanwhile waited
/// (issue 19).
struct JobListing: Sendable {
    let sources: StatusView
    let jobs: [(name: String, owner: StatusView.OwnerFacts?)]
    /// Without what a brief `list` leaves out (``ControlRequest/brief``).
    let brief: Bool
    /// Who asked: a reader sees only what it could read itself, a user only their own jobs.
    let peer: ControlPeer?

    /// `onlyJobsOf`: the uid whose jobs alone are listed (``ControlAuthorizer/Decision/allowOwnJobsOf(_:)``).
    init(_ sources: StatusView, owners: [String: JobOwner], brief: Bool, peer: ControlPeer?, onlyJobsOf uid: uid_t? = nil) {
        self.brief = brief
        self.peer = peer
        // Room for all at once: growing the array copies (and retains) every entry.
        var jobs: [(name: String, owner: StatusView.OwnerFacts?)] = []
        jobs.reserveCapacity(owners.count + sources.broken.count)
        // A user (not root, not a reader) lists their own jobs alone: by the uid the load recorded.
        for (name, owner) in owners where uid == nil || owner.definition.owningUID == uid {
            jobs.append((name: name, owner: StatusView.OwnerFacts(owner, wallClock: sources.wallClock)))
        }
        for (name, broken) in sources.broken where owners[name] == nil && (uid == nil || broken.ownerUID == uid) {
            jobs.append((name: name, owner: nil))
        }
        self.sources = sources
        self.jobs = jobs
    }

    /// The jobs' positions in ``jobs`` by next elapse (none last), then by name: positions are
    /// sorted, not entries, which would be copied (and their strings retained) as they move.
    var order: [Int] {
        jobs.indices.sorted { left, right in
            let leftNext = jobs[left].owner?.next ?? .max, rightNext = jobs[right].owner?.next ?? .max
            return leftNext != rightNext ? leftNext < rightNext : jobs[left].name < jobs[right].name
        }
    }

    /// Jobs to a part: each part is written on its own, the parts spread over the cores (on the
    /// caller's thread alone when there is one), each core's with one ``TriggerTexts``.
    static let jobsPerPart = 500

    /// The reply's line: the same bytes as `ControlResponse(type: .list, jobs:).jsonLine`.
    func jsonLine() -> [UInt8] {
        let order = self.order
        let parts = stride(from: 0, to: order.count, by: Self.jobsPerPart).map { $0..<min($0 + Self.jobsPerPart, order.count) }
        let written = parts.concurrentMap(minimumChunk: 1, chunkState: { StatusView.TriggerTexts() }) { triggerTexts, part in
            var writer = JSONWriter(capacity: part.count * 320)
            writer.beginElements()
            for index in part {
                let job = order[index]
                sources.status(of: jobs[job].name, owner: jobs[job].owner, triggerTexts: triggerTexts, brief: brief, for: peer)?
                    .write(to: &writer, brief: brief)
            }
            writer.endElements()
            return writer.bytes
        }
        return ControlResponse.listLine(jobParts: written)
    }
}

