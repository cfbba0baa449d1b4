import Glibc
package import JobdConfig

/// What jobd reads of the machine it runs on, for its decisions about runs: the facts `Condition…=`
/// and `Assert…=` are judged on, its own resource limits (what a `Limit…=` can be), and its
/// effective uid (whose home `WorkingDirectory=~` means for a run without `User=`).
///
/// Passed explicitly, with no default: a test that does not say which machine it means cannot
/// silently judge a job by the one it runs on.
package protocol HostFacts: Sendable {
    var conditions: any ConditionFacts { get }
    var ownLimits: OwnLimits { get }
    var effectiveUID: UInt32 { get }
}

/// The machine jobd runs on, read at each question.
package struct SystemHostFacts: HostFacts {
    package init() {}

    package var conditions: any ConditionFacts { SystemConditionFacts() }
    package var ownLimits: OwnLimits { .current() }
    package var effectiveUID: UInt32 { geteuid() }
}

extension HostFacts {
    /// The first of `definition`'s `Condition…=` (or with `assertions`, `Assert…=`) that does not hold now.
    package func failing(_ definition: JobDefinition, assertions: Bool) -> UnitCondition? {
        // No fact is read for a job without any.
        let chosen = definition.conditions.filter { $0.isAssertion == assertions }
        return chosen.isEmpty ? nil : UnitCondition.failing(chosen, on: conditions)
    }
}
