import JobdControl
import Testing

@testable import JobdDaemon

/// Issue 38: whose crontab a `crontab-*` request is about, decided from the peer's uid and this
/// machine's accounts (root and nobody, which every Debian system has): only root names another
/// user, a name a peer claims never outweighs its uid.
struct CrontabOwnerTests {
    static let nobody: UInt32 = 65_534

    func owner(_ user: String?, uid: UInt32, name: String?) -> Result<CrontabRequests.Owner, CrontabRequests.Refusal> {
        var request = ControlRequest(command: .crontabList)
        request.user = user
        return CrontabRequests.owner(of: request, from: ControlPeer(uid: uid, gid: uid, groups: [], level: uid == 0 ? .full : .user, userName: name))
    }

    @Test func aUserActsOnTheirOwnAndOnlyRootNamesAnother() throws {
        #expect(try owner(nil, uid: Self.nobody, name: "nobody").get().uid == Self.nobody)
        #expect(try owner("nobody", uid: Self.nobody, name: "nobody").get().name == "nobody", "naming yourself is allowed, as with Debian's")
        guard case .failure(let refusal) = owner("root", uid: Self.nobody, name: "nobody") else {
            Issue.record("nobody acted on root's crontab")
            return
        }
        #expect(refusal.message == "must be privileged to use -u" && refusal.code == .permissionDenied)
        let named = try owner("nobody", uid: 0, name: "root").get()
        #expect(named == CrontabRequests.Owner(name: "nobody", uid: Self.nobody, gid: named.gid))
        guard case .failure(let unknown) = owner("no-such-user-jobd", uid: 0, name: "root") else {
            Issue.record("an unknown user was taken")
            return
        }
        #expect(unknown.message == "crontab:  user `no-such-user-jobd' unknown")
    }

    @Test func thePeersUidDecidesNotTheNameItCarries() {
        // A uid without an account, and a name that belongs to another uid, are both refused.
        for (uid, name) in [(UInt32(4_242_424), String?.none), (4_242_424, "root"), (Self.nobody, "root")] {
            guard case .failure(let refusal) = owner(nil, uid: uid, name: name) else {
                Issue.record("uid \(uid) named \(name ?? "-") was given a crontab")
                continue
            }
            #expect(refusal.message.hasPrefix("crontab: your UID isn't in the passwd file."), "\(refusal.message)")
        }
    }
}
