import JobdUnitFile

/// `MailOn=`: when a run's output goes to `MailTo=`'s recipients.
package enum MailPolicy: String, Sendable, Hashable {
    /// Whenever the run wrote anything, whatever its result: what cron does with `MAILTO=`, on
    /// which scripts that "print only when something is wrong" rely.
    case output
    /// When the run failed, with what it wrote, if anything.
    case failure

    /// Whether `recipient` is an address jobd hands to sendmail: cron's own rule for `MAILTO=`
    /// (`safe_p`): an ASCII letter or digit, then letters, digits and `@!:%-.,_+=/`. Nothing that
    /// sendmail could read as an option or a shell could read as syntax.
    package static func isSafeRecipient(_ recipient: String) -> Bool {
        guard let first = recipient.utf8.first, first.isASCIILetter || first.isASCIIDigit else { return false }
        return recipient.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || "@!:%-.,_+=/".utf8.contains($0) }
    }
}
