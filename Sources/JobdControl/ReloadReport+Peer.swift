extension ReloadReport {
    /// The report as `peer` may see it: a user who is neither root nor a reader (``ControlAccess``)
    /// sees only their own jobs among the names (``jobOwners``) and only the errors of their own
    /// files (``errorOwners``), by the uid the load recorded, never by the name.
    package func shown(to peer: ControlPeer?) -> ReloadReport {
        guard let peer, peer.level == .user else { return self }
        let uid = peer.uid
        var report = self
        report.added = added.filter { jobOwners[$0] == uid }
        report.changed = changed.filter { jobOwners[$0] == uid }
        report.removed = removed.filter { jobOwners[$0] == uid }
        report.jobOwners = jobOwners.filter { $0.value == uid }
        report.errors = zip(errors, errorOwners).filter { $0.1 == .user(uid) }.map(\.0)
        report.errorOwners = report.errors.map { _ in .user(uid) }
        return report
    }
}
