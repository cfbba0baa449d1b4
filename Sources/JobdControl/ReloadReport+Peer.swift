extension ReloadReport {
    /// The report as `peer` may see it: a user who is neither root nor a reader (``ControlAccess``)
    /// sees only their own jobs (`USER:JOB`) among the names, and only the errors of their own
    /// files (kept under `users/USER/` in jobd's state directory).
    package func shown(to peer: ControlPeer?) -> ReloadReport {
        guard let peer, peer.level == .user else { return self }
        let prefix = (peer.userName ?? String(peer.uid)) + ":"
        var report = self
        report.added = added.filter { $0.hasPrefix(prefix) }
        report.changed = changed.filter { $0.hasPrefix(prefix) }
        report.removed = removed.filter { $0.hasPrefix(prefix) }
        report.errors = errors.filter { $0.contains("/users/\(prefix.dropLast())/") }
        return report
    }
}
