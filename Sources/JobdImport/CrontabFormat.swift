/// Whether a crontab names the user after each schedule (the system format of `/etc/crontab` and
/// `/etc/cron.d`), told from its entries when neither its path nor `--system` says: read as a user
/// crontab, a system crontab's account column would become the first word of every command.
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

    /// The format to read a crontab in: `--system` or a system path decides, and so does
    /// `--user` (with a note when the entries look otherwise); else the entries do. A crontab
    /// where some entries name an account and some do not is refused, and so is one whose entries
    /// all do but that root does not own (`ownerUID`: the file's owner, `nil` for standard input):
    /// cron reads a system crontab only from a file of root's, and a user's crontab that names
    /// `root` after each schedule must not make its jobs root's. A system crontab by name that
    /// root does not own is read, with a note that cron would not read it.
    package static func decide(_ detection: Detection, path: String, systemByName: Bool, explicitUser: Bool, ownerUID: UInt32?) -> Decision {
        let rootOwned = ownerUID == 0
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
            guard rootOwned else {
                return .refused("every entry of \(path) has an account (\(accounts.joined(separator: ", "))) after its schedule, as a system crontab has, "
                                + "but root does not own it, and cron reads a system crontab only from a file of root's: "
                                + "if it is one, import it with --system; if it is a user crontab, say whose it is with --user")
            }
            return .read(systemFormat: true, note: "read as a system crontab: every entry has an account (\(accounts.joined(separator: ", "))) "
                         + "after its schedule; if it is a user crontab whose commands start with such a word, say whose it is with --user")
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
