package import JobdSystem
package import JobdUnitFile

/// What jobd tells `jobd-cgexec` about one process it starts through it: a run's command, a `User=`
/// job's `EnvironmentFile=` reads, a run's mail. One typed value, written by one encoder
/// (ExecPlan+Encoding.swift) and parsed once, in C (Sources/CJobdExec/plan.c), in the order
/// `jobd-cgexec` applies it: cgroups, fence, attributes, sandbox, keyring, credentials, working
/// directory, command. A new field is one property here, one tag in `plan.h`, one line in each of
/// the encoder and the parser, and the round-trip test compares it.
package struct ExecPlan: Sendable, Equatable {
    package enum Mode: Sendable, Equatable {
        /// Runs ``argv`` with ``environment``.
        case run
        /// Reads ``readFiles`` as the switched user, each at most `limit` bytes, to stdout.
        case readFiles(limit: UInt64)
    }

    /// The groups, gid and uid the process switches to; `nil` keeps jobd's.
    package struct Credentials: Sendable, Equatable {
        package var groups: [UInt32]?
        package var gid: UInt32?
        package var uid: UInt32?

        package init(groups: [UInt32]? = nil, gid: UInt32? = nil, uid: UInt32? = nil) {
            self.groups = groups
            self.gid = gid
            self.uid = uid
        }

        /// `account`'s, as `setpriv --reuid --regid --groups` would switch: the uid only for
        /// `User=`; without `User=` (only `Group=`), jobd's own supplementary groups are kept.
        package init(_ account: Account) {
            self.init(groups: account.supplementaryGroups, gid: account.gid, uid: account.userName != nil ? account.uid : nil)
        }
    }

    /// The process attributes that need root (`Nice=`, `Limit…=`…), set before the switch.
    package struct Attributes: Sendable, Equatable {
        package struct Limit: Sendable, Equatable {
            package var resource: ResourceLimit.Resource
            package var limit: ResourceLimit
        }

        package struct Scheduling: Sendable, Equatable {
            package var policy: UInt32
            package var priority: UInt32
        }

        package var limits: [Limit] = []
        package var nice: Int32?
        /// The kernel's `IOPRIO_PRIO_VALUE`.
        package var ioPriority: UInt32?
        package var scheduling: Scheduling?
        package var umask: UInt32?
        /// The numbers of the keys jobd-cgexec takes as the job file gives them (`OOMScoreAdjust=`:
        /// the key table's ``JobKey/planNumber``), by tag.
        package var numbers: [Int: Int64] = [:]

        package init() {}
    }

    /// A fleet run's fence: the deadline file its supervisor watches, and `TimeoutStopSec=` in
    /// microseconds (`nil`: never SIGKILL).
    package struct Fence: Sendable, Equatable {
        package var path: String
        package var stopMicroseconds: UInt64?
    }

    /// The sandbox: systemd's sandboxing keys as `jobd-cgexec` applies them (Sandbox+Trampoline.swift).
    package struct Sandbox: Sendable, Equatable {
        package enum DevicePolicy: Sendable, Equatable { case closed, clock }
        /// A seccomp action: allow, kill the process (SIGSYS), or fail with an errno.
        package enum Action: Sendable, Equatable {
            case allow, kill
            case error(Int32)
        }

        /// One seccomp filter: ``names`` get ``action``, every other call ``defaultAction``.
        package struct Filter: Sendable, Equatable {
            package var defaultAction: Action
            package var action: Action
            package var names: [String]
        }

        package struct PrivateTmp: Sendable, Equatable {
            package var tmp: String
            package var varTmp: String
        }

        package var mounts: [JobdDefinition.Sandbox.MountEntry] = []
        /// The mount paths are looked up with the run's credentials (a user's own job).
        package var userPaths = false
        package var privateDevices = false
        /// `PrivateTmp=`'s directories for `/tmp` and `/var/tmp`, made by jobd for the run.
        package var privateTmp: PrivateTmp?
        package var nosuidMounts = false
        package var newUTS = false
        package var devicePolicy: DevicePolicy?
        /// The capabilities kept in the bounding set; `nil`: all.
        package var boundingSet: UInt64?
        package var ambientCapabilities: UInt64 = 0
        package var noNewPrivileges = false
        package var filters: [Filter] = []
        /// `RestrictNamespaces=`: the `CLONE_NEW*` types allowed; `nil`: not restricted.
        package var allowedNamespaces: UInt64?
        /// The flags of the keys jobd-cgexec takes as the job file gives them (`PrivateNetwork=`,
        /// `LockPersonality=`…: the key table's ``JobKey/planFlag``), by tag, ascending.
        package var flags: [Int] = []

        package init() {}
    }

    package var mode = Mode.run
    /// The cgroup directories the process enters: the run's cgroup v2 first, then its v1 twins.
    package var cgroups: [String] = []
    package var attributes = Attributes()
    package var sandbox = Sandbox()
    /// A session keyring of the run's own (systemd's `KeyringMode=private`).
    package var keyring = false
    package var fence: Fence?
    package var credentials = Credentials()
    /// Changed to after the switch, as the job's user; `nil` keeps jobd's (`/`).
    package var directory: WorkingDirectory?
    /// The command's whole environment: nothing of `jobd-cgexec`'s own reaches it.
    package var environment: [String: String] = [:]
    /// The command and its arguments; a name without a slash is searched in the environment's `PATH`.
    package var argv: [String] = []
    package var readFiles: [String] = []
    /// The command reads what follows the plan on stdin (a mail's message); else `/dev/null`.
    package var keepsStandardInput = false

    package init(mode: Mode = .run) {
        self.mode = mode
    }
}

extension ExecPlan.Fence {
    /// The fence of the deadline file at `path`, for a job whose `TimeoutStopSec=` is `stopTimeout`.
    package init(path: String, stopTimeout: TimeSpan) {
        self.init(path: path, stopMicroseconds: stopTimeout.isInfinite ? nil : stopTimeout.microseconds)
    }
}
