extension ReloadReport {
    /// The report as `peer` may see it: a user who is neither root nor a reader (``ControlAccess``)
    /// sees only their own jobs (`USER:JOB`) among the names, and only the errors of their own
    /// files (``errorOwners``, as the load found them).
    package func shown(to peer: ControlPeer?) -> ReloadReport {
        guard let peer, peer.level == .user else { return self }
        let prefix = (peer.userName ?? String(peer.uid)) + ":"
        var report = self
        report.added = added.filter { $0.hasPrefix(prefix) }
        report.changed = changed.filter { $0.hasPrefix(prefix) }
        report.removed = removed.filter { $0.hasPrefix(prefix) }
        let user = String(prefix.dropLast())
        report.errors = zip(errors, errorOwners).filter { $0.1 == user }.map(\.0)
        report.errorOwners = report.errors.map { _ in user }
        return report
    }
}
