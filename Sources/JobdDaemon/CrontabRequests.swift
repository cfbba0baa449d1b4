import Glibc
import JobdConfig
import JobdPolicy
import JobdControl
import JobdImport
import JobdLocks
import JobdLogging
import JobdScheduler
import Logging

/// `crontab`'s requests (`crontab-list`, `crontab-install`, `crontab-remove`), answered on the
/// connection's own thread: jobd, root, is what Debian's setgid crontab is, and writes users'
/// crontabs in cron's spool (``CrontabSpool``) on their behalf. Whose crontab it is comes from
/// the peer's uid (`SO_PEERCRED`), never from what the client says: only root names another user
/// (`crontab -u`). Whether they may at all is Debian's rule (``CronAccess``, read at each request).
struct CrontabRequests: Sendable {
    let spool: CrontabSpool
    /// Where `cron.allow` and `cron.deny` are (`/etc`).
    let accessDirectory: String
    /// Where each install, removal and listing is journaled, as Debian's cron logs them.
    let logger: Logger
    /// The configuration the loop applies: its `[Cron] FailureResult=` decides, as for cron mode's
    /// own reading, whether an idiom that exits non-zero is worth a warning at install.
    let generation: LockedBox<Generation>

    /// Whose crontab a request is about.
    struct Owner: Equatable {
        var name: String
        var uid: uid_t
        var gid: gid_t
    }

    /// Answers `request` if it is `crontab`'s; `false` leaves it to others.
    func handle(_ request: ControlRequest, reply: ControlReply) -> Bool {
        guard request.isCrontab else { return false }
        guard let peer = reply.peer else {
            reply.finish(with: .error("crontab needs a peer's credentials", code: .permissionDenied))
            return true
        }
        let owner: Owner
        switch Self.owner(of: request, from: peer) {
        case .failure(let refusal):
            reply.finish(with: .error(refusal.message, code: refusal.code))
            return true
        case .success(let found): owner = found
        }
        if let refusal = CronAccess.read(directory: accessDirectory).refusal(of: owner.name, uid: owner.uid) {
            // Root asking for a user who may not: Debian's words for that case.
            let message = peer.uid == 0 && owner.uid != 0 ? "The user \(owner.name) cannot use this program (crontab)" : refusal
            reply.finish(with: .error(message, code: .permissionDenied))
            return true
        }
        switch request.command {
        case .crontabList:
            switch spool.text(of: owner.name, uid: peer.uid == 0 ? nil : owner.uid) {
            case .failure(let error): reply.finish(with: .error(error.message))
            case .success(let text):
                journal(.crontabList, "LIST", by: peer, of: owner)
                var response = ControlResponse(type: .crontab)
                response.text = text
                reply.finish(with: response)
            }
        case .crontabInstall: install(request.text ?? "", source: request.path ?? "-", by: peer, for: owner, reply: reply)
        default: remove(by: peer, for: owner, reply: reply)
        }
        return true
    }

    /// A refusal's words and code.
    struct Refusal: Error {
        var message: String
        var code: ControlErrorCode?
    }

    /// The account whose crontab `request` is about: the peer's own, or, for root, `user`'s.
    /// Looked up by name as cron mode does (``JobdSystem/Account/named(_:)``), with the
    /// thread-safe calls: connections are answered in parallel.
    static func owner(of request: ControlRequest, from peer: ControlPeer) -> Result<Owner, Refusal> {
        if let name = request.user, name != peer.userName {
            guard let found = Account.named(name) else { return .failure(Refusal(message: "crontab:  user `\(name)' unknown")) }
            // Debian lets -u name yourself; any other user's crontab is root's to touch.
            guard peer.uid == 0 || found.uid == peer.uid else {
                return .failure(Refusal(message: "must be privileged to use -u", code: .permissionDenied))
            }
            return .success(Owner(name: name, uid: found.uid, gid: found.gid))
        }
        guard let name = peer.userName, let found = Account.named(name), found.uid == peer.uid else {
            return .failure(Refusal(message: "crontab: your UID isn't in the passwd file.\nbailing out.", code: .permissionDenied))
        }
        return .success(Owner(name: name, uid: peer.uid, gid: found.gid))
    }

    /// Debian's words, `(alice) REPLACE (alice)`: who ran crontab, what, whose; never the lines.
    private func journal(_ event: JobdEvent, _ action: String, by peer: ControlPeer, of owner: Owner) {
        let caller = peer.userName ?? "uid \(peer.uid)"
        logger.event(event, level: event == .crontabList ? .debug : .notice, "(\(caller)) \(action) (\(owner.name))", [
            JobdField.callerUID: "\(peer.uid)", JobdField.crontabUID: "\(owner.uid)", JobdField.crontabUser: owner.name,
        ])
    }

    private func install(_ text: String, source: String, by peer: ControlPeer, for owner: Owner, reply: ControlReply) {
        let bytes = Array(text.utf8)
        guard bytes.count <= CrontabSpool.maximumBytes else {
            return reply.finish(with: .error("\(source): the crontab is \(bytes.count) bytes; jobd takes at most \(CrontabSpool.maximumBytes)",
                                             code: .invalidJob))
        }
        let failureResult = generation.withLock { $0.settings.cron.failureResult }
        let check = CrontabCheck.check(crontab: bytes, of: owner.name, path: source, failureResult: failureResult,
                                       account: CronTable.account(named:))
        guard check.errors.isEmpty else {
            let lines = check.errors + check.warnings.sorted() + ["errors in crontab file, can't install."]
            return reply.finish(with: .error(lines.joined(separator: "\n"), code: .invalidJob))
        }
        let header = CrontabHeader.lines(source: source, installed: Self.ctime())
        do {
            try spool.install(header + text, of: owner.name, uid: owner.uid, gid: owner.gid)
        } catch {
            return reply.finish(with: .error("crontab: \(error.description)"))
        }
        journal(.crontabReplace, "REPLACE", by: peer, of: owner)
        reply.finish(with: ControlResponse(type: .crontabSaved, message: check.warnings.isEmpty ? nil : check.warnings.joined(separator: "\n")))
    }

    private func remove(by peer: ControlPeer, for owner: Owner, reply: ControlReply) {
        do {
            guard try spool.remove(of: owner.name) else { return reply.finish(with: .error("no crontab for \(owner.name)")) }
            journal(.crontabDelete, "DELETE", by: peer, of: owner)
            reply.finish(with: ControlResponse(type: .crontabSaved))
        } catch {
            reply.finish(with: .error("crontab: \(error.description)"))
        }
    }

    /// Now as `ctime` writes it, without its newline, in jobd's local time, as Debian's header has it.
    static func ctime() -> String {
        var now = time(nil)
        var buffer = [CChar](repeating: 0, count: 64)
        guard let text = ctime_r(&now, &buffer).map({ String(cString: $0) }) else { return "" }
        return text.trimmingSuffix("\n")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
