import Glibc
import JobdConfig
import JobdPolicy
import JobdControl
import JobdScheduler

/// Who may send which control request: one pure decision over the request, the peer's credentials
/// and a snapshot of what jobd knows, for every request path (the connection's thread decides each
/// request before anything answers it; the main loop decides again against its own generation a
/// request that names a job, whose owner a reload in between may have changed).
///
/// Root and jobd's own user may do everything; members of the readers' group may look; every other
/// user acts on their own jobs only and lists only those, and not at all when `users.allow` or
/// `users.deny` refuses them. Whose a job is is the uid recorded when its file was read as the
/// account's (``JobDefinition/owningUID``, ``JobdConfiguration/BrokenJob/ownerUID``), never its name.
enum ControlAuthorizer {
    enum Decision: Sendable, Equatable {
        case allow
        /// Allowed, and what it shows is only the jobs of this uid (a user's `list`).
        case allowOwnJobsOf(uid_t)
        case refuse(String)

        /// The reason, when refused.
        var refusal: String? {
            if case .refuse(let reason) = self { reason } else { nil }
        }
    }

    /// What a request is decided against, taken at once.
    struct Snapshot: Sendable {
        /// The configuration jobd applies: whose each job is.
        var generation: Generation
        /// `users.allow` and `users.deny`.
        var access: UserAccessList
        /// The readers' group, for its refusals.
        var readersGroup: String
    }

    /// Whose job `name` is in `generation`: `nil` when jobd has no such job (nor a file with errors
    /// of that name); `.some(nil)` for a system job, or a file no live account owns.
    static func owner(of name: String, in generation: Generation) -> uid_t?? {
        if let definition = generation.definition(of: name) { return .some(definition.owningUID) }
        if let broken = generation.broken[name] { return .some(broken.ownerUID) }
        return nil
    }

    static func decide(_ request: ControlRequest, from peer: ControlPeer, in snapshot: Snapshot) -> Decision {
        switch peer.level {
        case .full: return .allow
        case .readOnly where ControlAccess.isReadOnly(request.command): return .allow
        case .none: return .refuse("permission denied")
        case .readOnly, .user: break
        }
        // crontab's requests are anyone's to send, as Debian's crontab is anyone's to run: whose
        // crontab a request is about and whether cron.allow/cron.deny let that user have one is
        // CrontabRequests' to decide, by the peer's uid, not users.allow/users.deny's (jobd's own
        // user jobs).
        if request.isCrontab { return .allow }
        // A name that says `USER:JOB` is only where the request may be about the peer's own jobs:
        // the uid below decides.
        let namesOwn = peer.userName.map { request.isAbout(jobsOf: $0) } ?? false
        let listsOwn = peer.level == .user && request.command == .list
        guard namesOwn || listsOwn else {
            if peer.level == .readOnly { return .refuse(ControlAccess.readOnlyRefusal(request.command, group: snapshot.readersGroup)) }
            let own = peer.userName.map { "\($0):JOB" } ?? "USER:JOB"
            return .refuse("permission denied: '\(request.command.rawValue)' \(request.job.map { "of \($0) " } ?? "")needs root; "
                + "a user may act only on their own jobs, named \(own) (jobctl --user COMMAND JOB)")
        }
        if let refusal = snapshot.access.refusal(of: peer.userName ?? String(peer.uid)) { return .refuse("permission denied: " + refusal) }
        if listsOwn { return .allowOwnJobsOf(peer.uid) }
        // A job jobd does not have is answered as such; `logs` of it shows only the entries of runs
        // of the peer's uid (JOBD_JOB_UID=, UserRequests). `user-file` and `user-save` are about the
        // file in the peer's own spool directory, not the job loaded: the store takes only a file
        // that is the account's uid's (UserJobStore), whatever a job of that name is now.
        let ownFile = request.command == .userFile || request.command == .userSave
        if !ownFile, let name = request.job, let owner = owner(of: name, in: snapshot.generation), owner != peer.uid {
            return .refuse("permission denied: \(name) is not a job of yours")
        }
        return .allow
    }
}
