package import Glibc
package import JobdSystem
package import JobdUnitFile
import JobdDefinition
package import JobdConfig

/// Users' own jobs (`jobctl --user edit`), kept by jobd in its spool directory (`--spool-dir`,
/// `/var/spool/jobd`, which a purge of the package keeps, as Debian's cron keeps its crontabs):
/// `USER/JOB.job`. jobd alone writes there, as root, on the user's request over the control
/// socket; the spool and each user's directory are root's, mode 0700, and each file is the user's,
/// mode 0600 (so that `jobctl --user status` shows the user all of it), so no user can read another's
/// jobs, or change a file jobd reads but through jobd.
///
/// The job `JOB` of user `alice` is named `alice:JOB` everywhere (list, status, logs, the journal's
/// `JOBD_JOB=`, history files): a user's job name has no `:`, so it never clashes with another
/// user's; a system job of the same name wins, and the user's is reported broken.
package struct UserJobStore: Sendable {
    /// The directory of every user's directory: the spool.
    package var path: String

    package init(directory: String) {
        path = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// The name everything else knows `job` of `user` by.
    package static func jobName(user: String, job: String) -> String { user + ":" + job }

    /// The user and the user's own name of a job named by ``jobName(user:job:)``; `nil` for a system job.
    package static func owner(of name: String) -> (user: String, job: String)? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }

    /// Whether `name` may name a user's job, or a user: a job name without `:`.
    package static func isValidOwnName(_ name: String) -> Bool {
        JobFileReader.isValidJobName(name) && !name.contains(":") && !name.hasPrefix(".")
    }

    package func directory(of user: String) -> String { path + "/" + user }
    package func file(of user: String, job: String) -> String { directory(of: user) + "/" + job + ".job" }

    /// The names (without `USER:`) of `user`'s jobs, in name order.
    package func jobs(of user: String) -> [String] {
        guard case .success(let entries) = FileSystem.directoryEntries(directory(of: user)) else { return [] }
        return entries.filter { $0.hasSuffix(".job") && !$0.hasPrefix(".") }.map { String($0.dropLast(4)) }
            .filter(Self.isValidOwnName).sorted()
    }

    /// The text of `user`'s job `job`, whose account is `uid`: `nil` without a file, why it is not
    /// read when the file is not `uid`'s. Such a file was written for an earlier account of the
    /// same name (removed, and the name given to someone else since): as cron refuses a crontab
    /// whose owner is not its user ("WRONG FILE OWNER"), jobd neither runs it nor shows it.
    package func text(of user: String, uid: uid_t, job: String) -> Result<String, ConfigError>? {
        let path = file(of: user, job: job)
        switch FileSystem.readFile(path) {
        case .failure(let error) where error.errno == ENOENT:
            return nil
        case .failure(let error):
            return .failure(ConfigError(file: path, line: nil, message: error.message))
        case .success(let (_, status)) where status.st_uid != uid:
            return .failure(ConfigError(
                file: path, line: nil,
                message: "not read: the file is uid \(status.st_uid)'s, not \(user)'s (uid \(uid)): it was written for an earlier account named \(user)",
                hint: "if it is \(user)'s, chown \(user) \(path); else remove it"))
        case .success(let (text, _)):
            return .success(text)
        }
    }

    /// The definition of `owner`'s job `job` from `text` (shown as `path` in errors): the keys a user
    /// may set (``UserJobPolicy``) within `bounds`, then as any job file, run as `owner`, its
    /// `OnFailure=` and `OnSuccess=` naming jobs among `names` (the owner's, without `USER:`).
    package func definition(
        of owner: Account, job: String, path: String, text: String, names: Set<String>, bounds: UserJobPolicy.Bounds
    ) -> Result<JobDefinition, ConfigErrors> {
        let user = owner.userName ?? String(owner.uid)
        let policy = UserJobPolicy.errors(in: text, path: path, owner: owner, bounds: bounds)
        let read = JobFileReader.read(name: Self.jobName(user: user, job: job), path: path, text: text)
        var errors = policy
        if case .failure(let failure) = read {
            errors += failure.errors.filter { !policy.contains($0) }
        }
        guard case .success(var definition) = read, errors.isEmpty else {
            return .failure(ConfigErrors(errors.sorted { ($0.line ?? 0) < ($1.line ?? 0) }))
        }
        let bounded = UserJobPolicy.errors(of: definition, text: text, path: path, bounds: bounds)
        guard bounded.isEmpty else { return .failure(ConfigErrors(bounded)) }
        let unknown = JobReference.unknownReferences(in: [definition], names: names)
        if let found = unknown[definition.name] { return .failure(ConfigErrors(found)) }
        definition.user = user
        definition.owningUser = user
        definition.owningUID = owner.uid
        // Without a cgroup, jobd's own RLIMIT_NPROC (above pid_max) would be the user's only bound.
        definition.userTasksLimit = (definition.tasksMax ?? bounds.defaultTasksMax).resolved(systemMaximum: bounds.systemMaximum)
        // Set-user-ID programs gain nothing in a user's run, whatever restricts it (UserJobPolicy).
        definition.sandbox.noNewPrivileges = true
        definition.onFailure = definition.onFailure.map { Self.jobName(user: user, job: $0) }
        definition.onSuccess = definition.onSuccess.map { Self.jobName(user: user, job: $0) }
        return .success(definition)
    }

    /// Every user's jobs, as jobd loads them at start and at each reload, each file on its own (a
    /// broken one disables its own job). A user whose account is gone, or whom `access` refuses
    /// (`users.allow`, `users.deny`), keeps the files, but none runs; an account's jobs beyond
    /// `maximumJobs`, in name order, do not run either; `bounds` bound each job
    /// (``UserJobPolicy/Bounds``). `account` looks a directory's name up (NSS; a test's own).
    ///
    /// `UserJobsMax=` bounds an account (a uid), not a name (issue 37): names of one uid share one
    /// bound, and a file not read as the account's own (another uid's) is not counted as hers.
    package func read(
        access: UserAccessList, maximumJobs: Int, bounds: UserJobPolicy.Bounds, account: (String) -> Account? = Account.named
    ) -> (jobs: [JobDefinition], broken: [JobdConfiguration.BrokenJob]) {
        guard OwnedDirectory.problem(with: path) == nil, case .success(let users) = FileSystem.directoryEntries(path) else { return ([], []) }
        var jobs: [JobDefinition] = [], broken: [JobdConfiguration.BrokenJob] = []
        var counted: [uid_t: Int] = [:]
        for user in users.sorted() where Self.isValidOwnName(user) {
            let names = self.jobs(of: user)
            func breakAll(_ message: String, hint: String? = nil, uid: uid_t? = nil) {
                broken += names.map { job in
                    .init(name: Self.jobName(user: user, job: job), owner: user, ownerUID: uid, path: file(of: user, job: job),
                          errors: [ConfigError(file: file(of: user, job: job), line: nil, message: message, hint: hint)], revoked: true)
                }
            }
            if let problem = OwnedDirectory.problem(with: directory(of: user)) {
                breakAll("not read: \(problem)", hint: "users' job directories are root's, mode 0700")
                continue
            }
            guard let owner = account(user) else {
                breakAll("the user \(user) no longer exists", hint: "remove \(directory(of: user))")
                continue
            }
            if let refusal = access.refusal(of: user) {
                breakAll(refusal, uid: owner.uid)
                continue
            }
            for job in names {
                let file = file(of: user, job: job)
                let text = text(of: user, uid: owner.uid, job: job)
                    ?? .failure(ConfigError(file: file, line: nil, message: "the file was removed while jobd read it"))
                // A file jobd cannot read as the account's own (another uid's, unreadable) keeps nothing.
                if case .failure(let error) = text {
                    broken.append(.init(name: Self.jobName(user: user, job: job), owner: user, path: file, errors: [error], revoked: true))
                    continue
                }
                guard counted[owner.uid, default: 0] < maximumJobs else {
                    broken.append(.init(name: Self.jobName(user: user, job: job), owner: user, ownerUID: owner.uid, path: file, errors: [ConfigError(
                        file: file, line: nil, message: "\(user) (uid \(owner.uid)) has more than \(maximumJobs) jobs (UserJobsMax= in jobd.conf)",
                        hint: "remove some of uid \(owner.uid)'s jobs")], revoked: true))
                    continue
                }
                counted[owner.uid, default: 0] += 1
                let result = text.mapError { ConfigErrors([$0]) }
                    .flatMap { definition(of: owner, job: job, path: file, text: $0, names: Set(names), bounds: bounds) }
                switch result {
                case .success(let definition): jobs.append(definition)
                case .failure(let errors):
                    broken.append(.init(name: Self.jobName(user: user, job: job), owner: user, ownerUID: owner.uid, path: file, errors: errors.errors))
                }
            }
        }
        return (jobs, broken)
    }

    /// How many jobs the account `uid` has, as ``read(access:maximumJobs:bounds:account:)`` counts
    /// them against `UserJobsMax=`: the files that are the account's own in the directory of every
    /// name `account` gives that uid, whichever name a request came by.
    package func jobCount(ofUID uid: uid_t, account: (String) -> Account? = Account.named) -> Int {
        guard case .success(let users) = FileSystem.directoryEntries(path) else { return 0 }
        return users.filter { Self.isValidOwnName($0) && account($0)?.uid == uid }.reduce(0) { count, user in
            count + jobs(of: user).filter { job in FileSystem.status(file(of: user, job: job))?.st_uid == uid }.count
        }
    }

    /// Writes `text` as `owner`'s job `job`: through ``AtomicFile``, into the owner's directory,
    /// made (root's, 0700) when missing; the file is the owner's, mode 0600.
    package func save(_ text: String, of owner: Account, job: String) throws(AtomicFile.WriteError) {
        let user = owner.userName ?? String(owner.uid)
        for directory in [path, directory(of: user)] {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw AtomicFile.WriteError(description: "cannot make \(directory): \(String(cString: strerror(errno)))")
            }
            if let problem = OwnedDirectory.problem(with: directory) { throw AtomicFile.WriteError(description: problem) }
        }
        try AtomicFile.replace(file(of: user, job: job), with: text, mode: 0o600, owner: (owner.uid, owner.gid), durable: true)
    }

    /// Removes `user`'s job `job`; whether there was one.
    package func remove(of user: String, job: String) -> Bool {
        unlink(file(of: user, job: job)) == 0
    }
}

extension JobdConfiguration {
    /// Adds every user's jobs of `store` (``UserJobStore/read(access:maximumJobs:bounds:)``) to the
    /// jobs read from the configuration directory `directory`, whose `users.allow` and `users.deny`
    /// say who may have them. A system job wins over a user's job of the same name.
    package mutating func addUserJobs(from store: UserJobStore, configDirectory directory: String) {
        let settings = settings ?? DaemonSettings()
        let (userJobs, userBroken) = store.read(
            access: .read(configDirectory: directory), maximumJobs: settings.userJobsMax,
            bounds: UserJobPolicy.Bounds(settings: settings, systemMaximum: TasksMax.currentSystemMaximum()))
        let system = Set(jobs.lazy.map(\.name) + broken.lazy.map(\.name))
        for job in userJobs {
            if system.contains(job.name) {
                broken.append(BrokenJob(name: job.name, owner: job.owningUser, ownerUID: job.owningUID, path: job.path, errors: [ConfigError(
                    file: job.path, line: nil, message: "a system job is named \(job.name) too, and runs instead",
                    hint: "rename this job (jobctl --user edit), or the system job")]))
            } else {
                jobs.append(job)
            }
        }
        broken += userBroken.filter { !system.contains($0.name) }
    }
}
