/// Whether a crontab is read in the system format (a user after each schedule), decided as cron
/// decides it, by location or `--system`. Its entries are looked at only to refuse a crontab
/// that looks like a system crontab elsewhere: read as a user crontab, the account column would
/// become the first word of every command, so `--system` or `--user` must say which it is.
package enum CrontabFormat {
    package enum Detection: Sendable, Hashable {
        /// No entry has an account after its schedule (or there are no entries).
        case user
        /// Every entry has an account, and a command after it, where a system crontab's user is.
        case system(accounts: [String])
        /// Some entries do (`withAccount`, by line) and some do not.
        case mixed(withAccount: [Int], without: [Int])
    }

    package enum Decision: Sendable, Hashable {
        case read(systemFormat: Bool, note: String?)
        case refused(String)
    }

    /// Looks at each entry as a system crontab line: is the field after its schedule an account?
    package static func detect(_ bytes: [UInt8], isAccount: (String) -> Bool) -> Detection {
        var withAccount: [Int] = [], without: [Int] = []
        var accounts: [String] = []
        for line in CrontabText.lines(bytes) where !line.isComment && line.problem == nil {
            guard case .job = CrontabLine.parse(Substring(line.text), systemFormat: false) else { continue }
            if case .job(_, let user?, _) = CrontabLine.parse(Substring(line.text), systemFormat: true), isAccount(user) {
                withAccount.append(line.number)
                if !accounts.contains(user) { accounts.append(user) }
            } else {
                without.append(line.number)
            }
        }
        if withAccount.isEmpty { return .user }
        return without.isEmpty ? .system(accounts: accounts) : .mixed(withAccount: withAccount, without: without)
    }

    /// Whether `path` is a file cron reads by itself: `/etc/crontab`, a file directly in
    /// `/etc/cron.d/`, or a user's crontab in cron's spool, `/var/spool/cron/crontabs/USER`. jobd in
    /// cron mode reads these itself, so `jobctl import cron` of one says that it needs no import.
    package static func isCronSource(_ path: String) -> Bool {
        if isSystemPath(path) { return true }
        let spool = "/var/spool/cron/crontabs/"
        guard path.hasPrefix(spool) else { return false }
        let name = path.dropFirst(spool.count)
        return !name.isEmpty && !name.hasPrefix(".") && !name.contains("/")
    }

    /// What `jobctl import cron` says of a file cron reads by itself (``isCronSource(_:)``).
    package static let cronModeNote = "jobd in cron mode (the [Cron] section of jobd.conf, jobd.conf(5)) reads this file itself, "
        + "as cron does, and needs no import at all: an imported copy would run each line a second time, "
        + "and would not follow the file when it changes"

    /// Whether `path` is where cron reads system crontabs: `/etc/crontab`, or a file directly in
    /// `/etc/cron.d/` (cron reads no subdirectory), as written: cron decides the format by
    /// location, never by content, and so does the import.
    package static func isSystemPath(_ path: String) -> Bool {
        if path == "/etc/crontab" { return true }
        guard path.hasPrefix("/etc/cron.d/") else { return false }
        let name = path.dropFirst("/etc/cron.d/".count)
        return !name.isEmpty && name != "." && name != ".." && !name.contains("/")
    }

    /// The format to read a crontab in, as cron decides it: the system format only for a system
    /// path (``isSystemPath(_:)``) or `--system` (`systemByName`); any other crontab is a user's.
    /// One whose entries have an account after the schedule, all or some, is refused unless
    /// `--user` says it is a user crontab (with a note): a root-owned copy of alice's crontab
    /// whose every line says `root` after the schedule must not make its jobs root's, whoever
    /// owns the file. A system crontab by name that root does not own (`ownerUID`: the file's
    /// owner, `nil` for standard input) is read, with a note that cron would not read it.
    package static func decide(_ detection: Detection, path: String, systemByName: Bool, explicitUser: Bool, ownerUID: UInt32?) -> Decision {
        if systemByName {
            guard let ownerUID, ownerUID != 0 else { return .read(systemFormat: true, note: nil) }
            return .read(systemFormat: true, note: "\(path) is owned by uid \(ownerUID), not root: cron does not read such a system crontab "
                         + "(WRONG FILE OWNER); its jobs run as the accounts its entries name, as --system says")
        }
        switch detection {
        case .user:
            return .read(systemFormat: false, note: nil)
        case .system(let accounts):
            if explicitUser {
                return .read(systemFormat: false, note: "every entry of \(path) has an account (\(accounts.joined(separator: ", "))) after its schedule, "
                             + "as a system crontab has: read as a user crontab, as --user says, that word is the first of each command")
            }
            return .refused("every entry of \(path) has an account (\(accounts.joined(separator: ", "))) after its schedule, as a system crontab has, "
                            + "but cron reads the system format only in /etc/crontab and /etc/cron.d/, and reads any other crontab as a user's: "
                            + "if it is a system crontab, import it with --system; if it is a user crontab, say whose it is with --user NAME")
        case .mixed(let withAccount, let without):
            let with = "line" + (withAccount.count == 1 ? " " : "s ") + list(withAccount)
            let other = "line" + (without.count == 1 ? " " : "s ") + list(without)
            let have = withAccount.count == 1 ? "has" : "have", doNot = without.count == 1 ? "does not" : "do not"
            if explicitUser {
                return .read(systemFormat: false, note: "\(with) of \(path) \(have) an account after the schedule: read as a user crontab, "
                             + "as --user says, that word is the first of the command")
            }
            return .refused("\(with) of \(path) \(have) an account after the schedule, as a system crontab has, and \(other) \(doNot): "
                            + "if it is a system crontab, import it with --system (and give \(other) a user); "
                            + "if it is a user crontab, say whose it is with --user")
        }
    }

    private static func list(_ numbers: [Int]) -> String {
        numbers.count <= 5 ? numbers.map(String.init).joined(separator: ", ")
            : numbers.prefix(5).map(String.init).joined(separator: ", ") + " and \(numbers.count - 5) more"
    }
}
