/// `Condition…=` and `Assert…=`, as systemd.unit(5) reads them for the kinds jobd checks: a failed
/// condition skips the run (`run.skip`, `JOBD_REASON=condition`), a failed assertion fails it
/// (result `assert`). A `!` before the value negates it; a `|` makes it triggering: the run needs
/// every condition that is not, and at least one of those that are. An empty value resets every
/// condition and assertion given before it.
package struct UnitCondition: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case pathExists = "PathExists"
        case pathIsDirectory = "PathIsDirectory"
        case fileNotEmpty = "FileNotEmpty"
        case acPower = "ACPower"
        case virtualization = "Virtualization"
        case capability = "Capability"
        case user = "User"
    }

    package var kind: Kind
    package var isAssertion: Bool
    package var triggering: Bool
    package var negated: Bool
    package var value: String

    package var key: String { (isAssertion ? "Assert" : "Condition") + kind.rawValue }
    package var description: String { key + "=" + (triggering ? "|" : "") + (negated ? "!" : "") + value }

    /// The kind and whether it asserts, of a key such as `ConditionPathExists` (`nil`: another key).
    package static func kind(ofKey key: String) -> (Kind, isAssertion: Bool)? {
        for (prefix, assertion) in [("Condition", false), ("Assert", true)] where key.hasPrefix(prefix) {
            if let kind = Kind(rawValue: String(key.dropFirst(prefix.count))) { return (kind, assertion) }
        }
        return nil
    }

    /// Reads `value` for `kind`; the message and hint of what is wrong with it otherwise.
    package static func read(_ kind: Kind, isAssertion: Bool, value: String) -> Result<UnitCondition, ConditionError> {
        var text = Substring(value)
        let triggering = text.first == "|"
        if triggering { text = text.dropFirst() }
        let negated = text.first == "!"
        if negated { text = text.dropFirst() }
        let condition = UnitCondition(kind: kind, isAssertion: isAssertion, triggering: triggering, negated: negated, value: String(text))
        switch kind {
        case .pathExists, .pathIsDirectory, .fileNotEmpty:
            guard text.first == "/" else {
                return .failure(ConditionError(message: "\(condition.key)= needs an absolute path, not '\(text)'",
                                               hint: "write the path from /, as systemd does"))
            }
        case .acPower:
            guard JobFileReader.boolean(String(text)) != nil else {
                return .failure(ConditionError(message: "\(condition.key)= takes yes or no, not '\(text)'", hint: nil))
            }
        case .capability:
            guard Sandbox.capabilities.contains(String(text)) else {
                return .failure(ConditionError(message: "\(condition.key)=: '\(text)' is not a capability",
                                               hint: "write a capability's name, such as CAP_SYS_ADMIN"))
            }
        case .virtualization, .user:
            guard !text.isEmpty else {
                return .failure(ConditionError(message: "\(condition.key)= needs a value", hint: nil))
            }
        }
        return .success(condition)
    }

    package struct ConditionError: Error, Sendable {
        package var message: String
        package var hint: String?
    }
}

/// What the conditions are checked against: the machine as jobd sees it at a run's start.
package protocol ConditionFacts {
    func exists(_ path: String) -> Bool
    func isDirectory(_ path: String) -> Bool
    /// A regular file (after links) of more than zero bytes.
    func isNonEmptyFile(_ path: String) -> Bool
    /// On mains power, or with no battery or power supply that says otherwise (systemd's reading).
    var onACPower: Bool { get }
    /// The virtualization technology jobd runs in (`kvm`, `systemd-nspawn`…) and its class (`vm`,
    /// `container`), or `nil` on bare metal.
    var virtualization: (name: String, kind: String)? { get }
    /// Whether jobd's capability bounding set holds the capability numbered `number`.
    func hasCapability(_ number: Int) -> Bool
    /// jobd's own user: its uid, its name, and whether it is a system user (uid below 1000).
    var user: (uid: UInt32, name: String) { get }
}

extension UnitCondition {
    /// Whether the condition holds on `facts` (before `!`).
    func holds(on facts: some ConditionFacts) -> Bool {
        let result: Bool = switch kind {
        case .pathExists: facts.exists(value)
        case .pathIsDirectory: facts.isDirectory(value)
        case .fileNotEmpty: facts.isNonEmptyFile(value)
        case .acPower: facts.onACPower == (JobFileReader.boolean(value) ?? true)
        case .virtualization:
            if let yes = JobFileReader.boolean(value) {
                (facts.virtualization != nil) == yes
            } else {
                facts.virtualization.map { $0.name == value || $0.kind == value } ?? false
            }
        case .capability: Sandbox.capabilities.firstIndex(of: value).map(facts.hasCapability) ?? false
        case .user:
            switch value {
            case "@system": facts.user.uid < 1000
            default: UInt32(value).map { $0 == facts.user.uid } ?? (value == facts.user.name)
            }
        }
        return result != negated
    }

    /// Of `conditions`, the conditions (or, with `assertions`, the assertions), the first that keeps
    /// the run from going on, by systemd's rule; `nil` when they allow it. Reads no fact when there
    /// is none of them.
    package static func failing(
        _ conditions: [UnitCondition], assertions: Bool, on facts: @autoclosure () -> some ConditionFacts
    ) -> UnitCondition? {
        let chosen = conditions.filter { $0.isAssertion == assertions }
        return chosen.isEmpty ? nil : failing(chosen, on: facts())
    }

    /// Of `conditions` (all conditions or all assertions), the first that keeps the run from going
    /// on, by systemd's rule; `nil` when they allow it.
    package static func failing(_ conditions: [UnitCondition], on facts: some ConditionFacts) -> UnitCondition? {
        if let failed = conditions.first(where: { !$0.triggering && !$0.holds(on: facts) }) { return failed }
        let triggering = conditions.filter(\.triggering)
        if !triggering.isEmpty, !triggering.contains(where: { $0.holds(on: facts) }) { return triggering[0] }
        return nil
    }
}
