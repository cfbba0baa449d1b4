import Glibc
import JobdConfig
import JobdPolicy
import JobdControl
import JobdLocks
import JobdLogging
import JobdScheduler
import SystemdKit
import UnixSignals

/// Every control request first, on the connection's own thread, before any reaches the main loop:
/// who may send it (``ControlAuthorizer``, against the generation the loop published last and
/// `users.allow`/`users.deny` read at each request), then users' requests about their own files
/// (`jobctl --user`): `user-file` and `user-save`, which read and write the user's files
/// (``UserJobStore``) and look up accounts, and `logs`, which reads the journal, so that no file
/// system, journal or user database ever holds up the loop. A saved job is taken by a reload, as
/// if root had sent SIGHUP, and the request then waits for it as `watch-reload` does.
struct UserRequests: Sendable {
    let store: UserJobStore
    let directory: JobDirectory
    /// Where the loop's events go.
    let post: @Sendable (DaemonEvent) -> Void
    /// The generation the loop applies, as it published it last: whose each job is.
    let generation: LockedBox<Generation>

    /// Answers `request` if it is this type's to answer, or refuses it (``ControlAuthorizer``);
    /// `false` leaves it to the loop.
    func handle(_ request: ControlRequest, reply: ControlReply) -> Bool {
        guard let peer = reply.peer else { return false }
        // users.allow and users.deny are read only where they can refuse: never for root, nor for a
        // reader that only looks.
        let lists = peer.level == .user || (peer.level == .readOnly && !ControlAccess.isReadOnly(request.command))
        let snapshot = ControlAuthorizer.Snapshot(
            generation: generation.withLock { $0 },
            access: lists ? UserAccessList.read(configDirectory: directory.path) : UserAccessList(allowed: nil, denied: nil),
            readersGroup: RuntimeFiles.readersGroupName)
        if let refusal = ControlAuthorizer.decide(request, from: peer, in: snapshot).refusal {
            reply.finish(with: .error(refusal, code: .permissionDenied))
            return true
        }
        guard peer.level != .full || request.command == .userFile || request.command == .userSave else { return false }
        let user = peer.userName ?? String(peer.uid)
        switch request.command {
        case .userFile:
            guard let job = ownJob(request, of: user, reply: reply) else { return true }
            var response = ControlResponse(type: .userFile)
            switch store.text(of: user, uid: peer.uid, job: job) {
            case .failure(let error):
                reply.finish(with: .error(error.description, code: .permissionDenied))
                return true
            case .success(let text): response.text = text
            case nil: break
            }
            reply.finish(with: response)
        case .userSave:
            guard let job = ownJob(request, of: user, reply: reply) else { return true }
            save(request.text ?? "", as: job, of: user, path: request.path ?? request.job ?? job, reply: reply)
        case .logs:
            guard let name = request.job else {
                reply.finish(with: .error("logs needs a job", code: .badRequest))
                return true
            }
            if request.history == true {
                Self.sendHistory(of: name, ownedBy: peer.uid, runs: min(max(request.lines ?? 10, 1), 1_000), to: reply)
            } else {
                Self.sendLogs(of: name, ownedBy: peer.uid, lines: min(max(request.lines ?? 10, 1), 1_000), to: reply)
            }
        default:
            return false
        }
        return true
    }

    /// The job of `user` that `request` names, without `USER:`; `nil` (with the error sent) when
    /// it names none of theirs.
    private func ownJob(_ request: ControlRequest, of user: String, reply: ControlReply) -> String? {
        guard let name = request.job, let (owner, job) = UserJobStore.owner(of: name), owner == user,
              UserJobStore.isValidOwnName(job) else {
            reply.finish(with: .error("'\(request.job ?? "")' is not a job of yours: name it \(user):JOB, JOB of letters, digits and '_.@-'",
                                      code: .badRequest))
            return nil
        }
        return job
    }

    private func save(_ text: String, as job: String, of user: String, path: String, reply: ControlReply) {
        let name = UserJobStore.jobName(user: user, job: job)
        guard let owner = Account.named(user) else {
            return reply.finish(with: .error("your account \(user) cannot be looked up"))
        }
        let existing = store.jobs(of: user)
        if text.allSatisfy(\.isWhitespace) {
            guard existing.contains(job), store.remove(of: user, job: job) else {
                return reply.finish(with: .error("\(name) has no file: nothing to remove"))
            }
            return reloaded(reply, saying: "\(name) removed")
        }
        let settings = (try? directory.loadSettings().get()) ?? DaemonSettings()
        // The bound is the account's, whatever name it asked by (the load counts it so too).
        let count = existing.contains(job) ? 0 : store.jobCount(ofUID: owner.uid)
        if !existing.contains(job), count >= settings.userJobsMax {
            return reply.finish(with: .error(
                "\(user) (uid \(owner.uid)) has \(count) jobs, as many as jobd allows an account (UserJobsMax=\(settings.userJobsMax) in jobd.conf); "
                    + "remove one first (save it empty)", code: .invalidJob))
        }
        if FileSystem.status(directory.jobsPath + "/" + name + ".job") != nil {
            return reply.finish(with: .error("\(path): error: a system job is named \(name); choose another name", code: .invalidJob))
        }
        let bounds = UserJobPolicy.Bounds(settings: settings, systemMaximum: TasksMax.currentSystemMaximum())
        switch store.definition(of: owner, job: job, path: path, text: text, names: Set(existing + [job]), bounds: bounds) {
        case .failure(let errors):
            reply.finish(with: .error(errors.errors.map(\.description).joined(separator: "\n"), code: .invalidJob))
        case .success:
            do {
                try store.save(text, of: owner, job: job)
            } catch {
                return reply.finish(with: .error("cannot keep \(name): \(error)"))
            }
            reloaded(reply, saying: "\(name) saved")
        }
    }

    /// The last `lines` entries of the runs of `name` (`run.*` events and output, that jobd
    /// wrote: journald's `_UID` is root's) while it was a job of `uid`'s, oldest first, read here
    /// on the connection's thread. By uid (`JOBD_JOB_UID=`), not by name alone: the job may be gone,
    /// and a name was perhaps a removed account's, whose name is now another's.
    static func sendLogs(of name: String, ownedBy uid: uid_t, lines: Int, to reply: ControlReply) {
        var entries: [JournalEntry] = []
        do {
            let reader = try JournalReader(.local)
            try reader.addMatch("JOB", name)
            try reader.addMatch(JobdField.jobUID, String(uid))
            try reader.seekTail()
            while entries.count < lines, let entry = try reader.previous() {
                if entry["JOBD_EVENT"]?.hasPrefix("run.") == true, entry["_UID"] == "0" { entries.append(entry) }
            }
        } catch {
            return reply.finish(with: .error("jobd cannot read the journal: \(error)"))
        }
        for entry in entries.reversed() {
            var response = ControlResponse(type: .logEntry, run: RunReport(job: name, runID: entry["JOBD_RUN"].flatMap { UInt64($0) }))
            response.line = entry.message ?? ""
            response.timeUSec = Int64(clamping: entry.realtimeUSec)
            reply.send(response)
        }
        reply.finish()
    }

    /// What `jobctl why` reads of `name`'s runs while it was a job of `uid`'s (as ``sendLogs``) and
    /// jobd's starts and stops (`runs` runs of it), oldest first, with only the fields it reads, on
    /// the connection's thread.
    static func sendHistory(of name: String, ownedBy uid: uid_t, runs: Int, to reply: ControlReply) {
        let entries: [JournalEntry]
        let owner = String(uid)
        do {
            entries = try JournalReader.jobHistory(of: name, in: .local, runs: runs) {
                $0["_UID"] == "0" && ($0[JobdField.job] == nil || $0[JobdField.jobUID] == owner)
            }
        } catch {
            return reply.finish(with: .error("jobd cannot read the journal: \(error)"))
        }
        for entry in entries {
            var response = ControlResponse(type: .logEntry)
            response.fields = entry.fields.filter { JournalReader.jobHistoryFields.contains($0.key) }.map { "\($0.key)=\($0.value)" }.sorted()
            response.timeUSec = Int64(clamping: entry.realtimeUSec)
            reply.send(response)
        }
        reply.finish()
    }

    /// Says `message`, then waits for the reload that takes the change, as `watch-reload` does.
    private func reloaded(_ reply: ControlReply, saying message: String) {
        reply.send(ControlResponse(type: .userSaved, message: message))
        post(.control(ControlRequest(command: .watchReload), reply))
        post(.signal(.sighup))
    }
}
