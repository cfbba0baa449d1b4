/// What a claim came to.
package enum ClaimVerdict: Sendable, Hashable {
    /// This node holds the elapse: it runs it. `token` is the claim's fencing token, which grows
    /// with every claim the fleet makes (a database sequence): the run gets it as `JOBD_FENCE`, and
    /// a store that refuses a token lower than one it has seen refuses a run whose lease another
    /// node took over.
    case won(token: Int64)
    /// Another node (named, when the database said which) holds it.
    case taken(by: String)
    /// Nothing could be claimed: the database is unreachable, or this node's clock is too far off.
    case unavailable(reason: String)

    /// Whether this node holds the elapse.
    package var isWon: Bool {
        if case .won = self { true } else { false }
    }

    /// The `run.skip` reason of a run that does not start.
    package var skipReason: String? {
        switch self {
        case .won: nil
        case .taken(let node): "claimed-by \(node)"
        case .unavailable(let reason): reason
        }
    }
}
