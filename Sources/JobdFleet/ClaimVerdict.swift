/// What a claim came to.
package enum ClaimVerdict: Sendable, Hashable {
    /// This node holds the elapse: it runs it.
    case won
    /// Another node (named, when the database said which) holds it.
    case taken(by: String)
    /// Nothing could be claimed: the database is unreachable, or this node's clock is too far off.
    case unavailable(reason: String)

    /// The `run.skip` reason of a run that does not start.
    package var skipReason: String? {
        switch self {
        case .won: nil
        case .taken(let node): "claimed-by \(node)"
        case .unavailable(let reason): reason
        }
    }
}
