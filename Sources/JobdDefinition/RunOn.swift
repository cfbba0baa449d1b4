/// `RunOn=`: where a job runs when several jobd nodes share a `[Fleet]` database.
package enum RunOn: String, Sendable, Hashable, CaseIterable {
    /// Every node runs each elapse, as a single machine does (the default).
    case everyNode = "every-node"
    /// One node per elapse: the node that claims the elapse in the fleet's database first.
    case oneNode = "one-node"
}
