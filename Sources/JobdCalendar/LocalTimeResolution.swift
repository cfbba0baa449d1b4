/// Which instants a wall-clock reading stands for in a zone.
package enum LocalTimeResolution: Sendable, Hashable {
    /// The reading happens once.
    case unique(RealtimeInstant)
    /// The reading happens twice: the clock was set back (a fall-back overlap).
    case repeated(first: RealtimeInstant, second: RealtimeInstant)
    /// The reading never happens: the clock jumped over it at `transition` (a spring-forward gap).
    case skipped(transition: RealtimeInstant)
}
