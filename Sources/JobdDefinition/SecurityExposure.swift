/// How exposed a job's runs are, scored as `systemd-analyze security` of systemd 252 scores a
/// service with the same keys: the same checks, weights, ranges and descriptions
/// (``SecurityExposure/assessors``), the same overall exposure from 0.0 to 10.0 and the same
/// predicate words. A pure function of the definition, so that jobd computes it once per job for
/// `jobctl list --json` and `jobctl security` alike, and tests drive it with no process.
///
/// A check on a setting jobd has no key for is scored by what a run really gets (see
/// jobd.job(5), "Exposure"): no `KeyringMode=` (a run gets a session keyring of its own, as
/// systemd's default `KeyringMode=private`: safe), no `ProtectProc=`, `RestrictAddressFamilies=`, `IPAddressDeny=`…
/// (exposed, as a service without them), no `Delegate=` or `NotifyAccess=` (a run gets neither:
/// safe); `PrivateMounts=` holds where a key gives the run its own mount namespace.
package struct SecurityExposure: Sendable, Hashable {
    /// One check's verdict, as a row of `systemd-analyze security`.
    package struct Check: Sendable, Hashable {
        /// systemd's name of the check, such as `PrivateNetwork=` or `SystemCallFilter=~@clock`.
        package var id: String
        package var description: String
        package var weight: Int
        package var range: Int
        /// From 0 (safe) to ``range`` (exposed); `nil`: the check does not apply (a root job's
        /// `SupplementaryGroups=`).
        package var badness: Int?
        /// This check's share of the overall exposure, in tenths; `nil` where it adds nothing.
        package var exposureTenths: Int?
    }

    /// systemd's words for an exposure, from its least to its most exposed.
    package enum Predicate: String, Sendable, CaseIterable {
        case perfect = "PERFECT", safe = "SAFE", ok = "OK", medium = "MEDIUM", exposed = "EXPOSED", unsafe = "UNSAFE"
        case dangerous = "DANGEROUS"

        /// The predicate of an exposure in tenths, by systemd's thresholds.
        package init(exposureTenths: Int) {
            self = switch exposureTenths {
            case 100...: .dangerous
            case 90...: .unsafe
            case 75...: .exposed
            case 50...: .medium
            case 10...: .ok
            case 1...: .safe
            default: .perfect
            }
        }

        /// The face systemd prints beside the word.
        package var face: String {
            switch self {
            case .dangerous: "🤢"
            case .unsafe: "😨"
            case .exposed: "🙁"
            case .medium: "😐"
            case .ok: "🙂"
            case .safe: "😀"
            case .perfect: "😇"
            }
        }
    }

    /// Every check, in systemd's order.
    package var checks: [Check]
    /// The overall exposure in tenths: 0 (perfect) to 100 (dangerous).
    package var exposureTenths: Int
    package var predicate: Predicate { Predicate(exposureTenths: exposureTenths) }

    /// The exposure of `definition`'s runs.
    package init(_ definition: JobDefinition) {
        self.init(Facts(definition))
    }

    /// The overall exposure alone, in tenths: what `jobctl list` shows for each job, at once for a
    /// job with only common settings (most jobs), else as the read computed it.
    package static func exposureTenths(of definition: JobDefinition) -> Int {
        if definition.hasOnlyCommonSettings { return unconfinedTenths }
        if let cached = definition.cachedExposureTenths { return cached }
        let facts = Facts(definition)
        return facts == Facts() ? unconfinedTenths : SecurityExposure(facts).exposureTenths
    }

    private static let unconfinedTenths = SecurityExposure(Facts()).exposureTenths

    init(_ facts: Facts) {
        var checks: [Check] = []
        var badnessSum = 0, weightSum = 0
        for assessor in Self.assessors {
            let verdict = assessor.assess(facts)
            var description: String
            switch verdict.badness {
            case nil: description = assessor.notApplicable ?? ""
            case assessor.range: description = assessor.bad ?? ""
            case 0: description = assessor.good ?? ""
            default: description = ""
            }
            if let own = verdict.description { description = own }
            if let badness = verdict.badness {
                badnessSum += Self.divideRoundingUp(badness * assessor.weight, assessor.range)
                weightSum += assessor.weight
            }
            checks.append(Check(id: assessor.id, description: description, weight: assessor.weight, range: assessor.range, badness: verdict.badness))
        }
        // As systemd: each row's share rounded up twice, the whole rounded up once.
        for index in checks.indices {
            guard let badness = checks[index].badness, badness > 0 else { continue }
            let check = checks[index]
            checks[index].exposureTenths = Self.divideRoundingUp(Self.divideRoundingUp(badness * check.weight * 100, check.range), weightSum)
        }
        self.checks = checks
        exposureTenths = Self.divideRoundingUp(badnessSum * 100, weightSum)
    }

    static func divideRoundingUp(_ value: Int, _ divisor: Int) -> Int { (value + divisor - 1) / divisor }

    /// A tenths value as systemd prints it: `9.6`.
    package static func text(tenths: Int) -> String { "\(tenths / 10).\(tenths % 10)" }

    /// What the checks read of a definition: systemd's view of a service, for a job.
    struct Facts: Equatable {
        var user: String?
        var supplementaryGroups: [String] = []
        var umask: UInt32 = 0o022
        var sandbox = Sandbox()

        /// A job with none of the keys the checks read.
        init() {}

        init(_ definition: JobDefinition) {
            user = definition.user
            supplementaryGroups = definition.supplementaryGroups
            umask = definition.processAttributes.umask ?? 0o022
            sandbox = definition.sandbox
        }

        /// As systemd's `security_info_runs_privileged`: no `User=`, or root's.
        var runsPrivileged: Bool { user == nil || user == "root" || user == "0" || user == "" }

        /// The capability bounding set with what the keys drop, as systemd drops it.
        var boundingSet: UInt64 { sandbox.boundingSet ?? Sandbox.allCapabilities }
    }

    /// One check: systemd's table entry, and how it reads a job.
    struct Assessor: Sendable {
        var id: String
        var good: String?
        var bad: String?
        var notApplicable: String?
        var weight: Int
        var range: Int
        var assess: @Sendable (Facts) -> (badness: Int?, description: String?)
    }
}
