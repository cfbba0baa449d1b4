import Glibc
package import JobdConfig

/// jobd's own hard resource limits, and whether it may raise one: what a run's `Limit…=` can be,
/// since jobd-cgexec sets them with jobd's credentials (``ProcessAttributes/limitRefusals(path:ownHard:mayRaise:)``).
package struct OwnLimits: Sendable {
    /// Each resource's hard limit; `nil` is infinity.
    package var hard: [ResourceLimit.Resource: UInt64?]
    /// Whether jobd has `CAP_SYS_RESOURCE` in its effective set (root on a host; not in an nspawn
    /// container, nor for a jobd of another user).
    package var mayRaise: Bool

    package init(hard: [ResourceLimit.Resource: UInt64?], mayRaise: Bool) {
        self.hard = hard
        self.mayRaise = mayRaise
    }

    /// jobd's, now.
    package static func current() -> OwnLimits {
        var hard: [ResourceLimit.Resource: UInt64?] = [:]
        for resource in ResourceLimit.Resource.allCases {
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(UInt32(resource.number)), &limit) == 0 else { continue }
            hard[resource] = limit.rlim_max == rlim_t.max ? nil : UInt64(limit.rlim_max)  // RLIM_INFINITY
        }
        let capSysResource: UInt64 = 1 << 24
        return OwnLimits(hard: hard, mayRaise: (SystemConditionFacts.capabilities("CapEff") ?? 0) & capSysResource != 0)
    }

    /// Why `definition`'s `Limit…=` keys cannot be applied to its runs, each at its line.
    package func refusals(_ definition: JobDefinition) -> [ConfigError] {
        let attributes = definition.processAttributes
        guard !attributes.limits.isEmpty else { return [] }
        return attributes.limitRefusals(path: definition.path, ownHard: { hard[$0] ?? nil }, mayRaise: mayRaise)
    }
}
