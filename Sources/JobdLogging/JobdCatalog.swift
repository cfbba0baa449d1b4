/// The journal catalog text for every ``JobdEvent``: what `journalctl -x` shows under an entry.
///
/// `systemd/jobd.catalog` is generated from ``render()``; a test checks that the file is up to date
/// (run it with `JOBD_UPDATE_CATALOG=1` to rewrite the file). `@FIELD@` in a body is replaced by the
/// entry's field of that name when journalctl shows it.
package enum JobdCatalog {
    /// The catalog entry of one event kind.
    package struct Entry: Sendable, Hashable {
        package let subject: String
        package let body: String
    }

    /// The entry for `kind`. The switch is exhaustive, so a new event kind cannot miss its text.
    package static func entry(for kind: JobdEvent) -> Entry {
        switch kind {
        case .daemonStart:
            Entry(subject: "jobd is starting", body: """
                jobd, the job scheduler daemon, has started and is reading its job files.
                Nothing runs until it reports that it is ready (daemon.ready). A job file with
                errors disables only its own job: look for config.error entries with
                journalctl -u jobd -p err
                """)
        case .daemonReady:
            Entry(subject: "jobd is ready and scheduling jobs", body: """
                jobd has loaded its job files, scheduled their timers and notified the service
                manager (READY=1). Jobs now run on schedule. Job files with errors, if any, are named
                in the message and in config.error entries before it; their jobs do not run until
                the file is fixed and jobd reloaded (systemctl reload jobd).
                """)
        case .daemonStop:
            Entry(subject: "jobd is stopping", body: """
                jobd is shutting down (STOPPING=1). Timers are cancelled; runs still in progress are
                stopped after their stop timeout. Runs missed while jobd is down are not caught up
                unless a job asks for it.
                """)
        case .daemonExit:
            Entry(subject: "jobd has stopped", body: """
                jobd finished shutting down and is about to exit. Every job timer was invalidated and
                every job owner released before this message; the message says how many job timers
                were still alive, which is 0 unless something leaked (jobd's own timers are not
                counted). jobctl audit checks the whole run of jobd for leaks.
                """)
        case .reloadStart:
            Entry(subject: "jobd is reloading its job files", body: """
                jobd received a reload request (SIGHUP or systemctl reload) and is reading its job
                files again. The current generation keeps running until the new one has loaded.
                """)
        case .reloadDone:
            Entry(subject: "jobd reloaded its job files", body: """
                Every job file of the system's loaded without errors (errors in users' own jobs
                break only those jobs: their config.error entries come before this one); the
                configuration is now in effect as generation @JOBD_GENERATION@. Jobs that were removed will not be scheduled again;
                jobs whose file did not change keep their schedule.
                """)
        case .reloadFailed:
            Entry(subject: "jobd could not reload all of its configuration", body: """
                A reload found errors: @JOBD_REASON@
                Each job file counts on its own. The valid changes are in effect (generation
                @JOBD_GENERATION@); a job file with errors keeps its job's previous definition, a
                new file with errors adds nothing, and a jobd.conf with errors keeps the previous
                settings. When the configuration directory could not be read at all, nothing changed.
                The config.error entries just before this one name each file and line. Fix them, then
                reload again with: systemctl reload jobd
                """)
        case .configError:
            Entry(subject: "A job file has an error", body: """
                In @CONFIG_FILE@: @JOBD_REASON@
                (The line is in the message and in CONFIG_LINE, when the error is on one line.)
                Only the job defined in that file is affected: at start it does not run; at a
                reload it keeps its previous definition. An error in jobd.conf keeps the previous
                settings (the defaults at start). Check a file with jobctl check, correct it, then
                reload jobd: systemctl reload jobd
                """)
        case .generationLoad:
            Entry(subject: "jobd loaded a new generation of job definitions", body: """
                Generation @JOBD_GENERATION@ of the job definitions is now active. Every start-up
                and every reload makes a new generation. Logged at debug priority, for jobctl audit.
                """)
        case .generationRetire:
            Entry(subject: "jobd retired its last generation of job definitions", body: """
                jobd is stopping: generation @JOBD_GENERATION@, the last one, was retired and its
                owners released. (At a reload, owners of changed and removed jobs are released one
                by one: owner.deinit.) Logged at debug priority, for jobctl audit.
                """)
        case .ownerInit:
            Entry(subject: "A job owner was created", body: """
                Owner @JOBD_OWNER@ of job @JOB@ was created for generation @JOBD_GENERATION@. Its
                timer lives as long as it does. Logged at debug priority, for jobctl audit.
                """)
        case .ownerDeinit:
            Entry(subject: "A job owner was released", body: """
                Owner @JOBD_OWNER@ of job @JOB@ was released; its timer stopped with it. Logged at
                debug priority, for jobctl audit.
                """)
        case .ownerRetain:
            Entry(subject: "Job owners were carried into a new generation", body: """
                A reload kept @JOBD_OWNER_COUNT@ job(s) that did not change: their owners (named in
                the JOBD_OWNERS field as ranges of owner ids, such as 1-4999,5001-10000) and their
                schedules carry over into generation @JOBD_GENERATION@. One entry names every owner
                a reload kept (one per 1,000 ranges when the ids are scattered), so the journal grows
                with what changed, not with the number of jobs. This is normal; it is logged at debug
                priority so that jobctl audit can follow every owner. (Older versions logged one
                entry per owner, with JOB and JOBD_OWNER; jobctl audit reads both.)
                """)
        case .ownerLeak:
            Entry(subject: "A job owner was not released", body: """
                Owner @JOBD_OWNER@ of job @JOB@ should have been released but is still alive. Its
                timers no longer fire (they hold it weakly), but memory is not reclaimed.
                This is a bug in jobd: please report it with the output of
                journalctl -t jobd JOBD_OWNER=@JOBD_OWNER@
                """)
        case .ownerLateDeinit:
            Entry(subject: "A job owner was released late", body: """
                Owner @JOBD_OWNER@ of job @JOB@ was released only after it had been reported as
                leaked or retained. No action is needed; if it happens often, report it.
                """)
        case .timerSchedule:
            Entry(subject: "A job timer was scheduled", body: """
                Timer @JOBD_TIMER@ of job @JOB@ will fire next at the time in the message; a
                timer.fire entry follows when it does. Logged at trace level only, which jobd does
                not send to the journal by default.
                """)
        case .timerFire:
            Entry(subject: "A job timer fired", body: """
                Timer @JOBD_TIMER@ of job @JOB@ fired; a run.start, run.wait or run.skip follows.
                Logged at debug priority, for jobctl audit.
                """)
        case .timerInvalidate:
            Entry(subject: "A job timer was cancelled", body: """
                Timer @JOBD_TIMER@ of job @JOB@ was cancelled, because the job was removed or
                changed by a reload, its owner was released, or jobd is stopping. Logged at debug
                priority, for jobctl audit.
                """)
        case .runStart:
            Entry(subject: "A job run started", body: """
                Run @JOBD_RUN_ID@ of job @JOB@ started; its process id is in JOBD_PID. (At priority
                err it could not start, and the message says why.) Its output is logged
                under the job's name: journalctl -t @JOB@, or for this run alone
                jobctl logs @JOB@ --run @JOBD_RUN_ID@ (journalctl JOBD_RUN_ID=@JOBD_RUN_ID@).
                Every entry of a run of a user's own job (jobctl --user), its output too,
                carries JOBD_JOB_UID=, the uid of the account whose job it is: what the user's
                jobctl --user logs shows, also once the job is gone.
                """)
        case .runExit:
            Entry(subject: "A job run finished", body: """
                Run @JOBD_RUN_ID@ of job @JOB@ ended: @JOBD_RESULT@ (@EXIT_CODE@, status
                @EXIT_STATUS@) after @JOBD_DURATION_USEC@ microseconds. Any result but success or
                stopped is a failure: read the run's output with journalctl JOBD_RUN_ID=@JOBD_RUN_ID@
                A failed run is retried if the job has Restart=, and starts the jobs in its
                OnFailure= once no retry is left; a successful one starts those in its OnSuccess=.
                Where jobd has a delegated cgroup (Delegate=yes in jobd.service), each run has a cgroup
                of its own (JOBD_CGROUP=), and this entry carries the CPU time its processes used in
                microseconds (JOBD_CPU_USEC=, JOBD_CPU_USER_USEC=, JOBD_CPU_SYSTEM_USEC=) and, where
                the memory controller is on the cgroup v2 hierarchy, their peak memory in bytes
                (JOBD_MEMORY_PEAK=), as systemd's "Consumed ... CPU time" line for a service.
                """)
        case .runSkip:
            Entry(subject: "A job run was skipped", body: """
                Job @JOB@ was due but did not run, or a waiting run or retry of it was dropped:
                @JOBD_REASON@
                "overlap": the previous run is still going (see Overlap=); "trigger-cycle": an
                OnFailure=/OnSuccess= chain came back to a job already on it; "job-removed": a reload
                removed the job; "job-waiting-runs-max" or "user-waiting-runs-max": as many runs of the
                job, or of its user's own jobs, already wait for a slot as JobWaitingRunsMax= or
                UserWaitingRunsMax= in jobd.conf allow. If runs are skipped often, make the job faster
                or its schedule less frequent.
                """)
        case .runTimeout:
            Entry(subject: "A job run timed out", body: """
                Run @JOBD_RUN_ID@ of job @JOB@ ran longer than its RuntimeMaxSec= and is being
                stopped: SIGTERM to its process group, then SIGKILL after its TimeoutStopSec=. Its
                result is "timeout". Check its output (journalctl JOBD_RUN_ID=@JOBD_RUN_ID@) for where
                it hung, or raise RuntimeMaxSec=.
                """)
        case .runOutput:
            Entry(subject: "Output of a job run", body: """
                A line that run @JOBD_RUN_ID@ of job @JOB@ wrote to its standard output (priority
                info) or standard error (priority err), logged under the job's name or its
                SyslogIdentifier=.
                """)
        case .runStop:
            Entry(subject: "A job run is being stopped", body: """
                jobd sent SIGTERM to the process group of run @JOBD_RUN_ID@ of job @JOB@:
                @JOBD_REASON@ ("replaced": a new run of the job takes its place, Overlap=replace;
                "requested": jobctl stop; "shutdown": jobd is stopping; "oom-kill": the kernel's OOM
                killer killed a process in the cgroup of a run with a memory limit, as systemd's
                OOMPolicy=stop; "lease-lost": this node no longer holds the fleet lease of a
                RunOn=one-node run, whose supervisor, jobd-cgexec, stopped it). If it has not exited
                by the job's TimeoutStopSec=, it gets SIGKILL. Its result is "stopped", not a failure,
                but for "oom-kill" (a failure) and "lease-lost" ("lost", a failure).
                """)
        case .runKill:
            Entry(subject: "A job run was killed", body: """
                Run @JOBD_RUN_ID@ of job @JOB@ did not exit within its TimeoutStopSec= after
                SIGTERM, so jobd sent SIGKILL to its process group. A job that needs longer to stop
                cleanly can be given a longer TimeoutStopSec=; one that ignores SIGTERM should be fixed.
                """)
        case .runWait:
            Entry(subject: "A job run waits", body: """
                Run @JOBD_RUN_ID@ of job @JOB@ was asked for but waits: @JOBD_REASON@
                "max-concurrent-runs": MaxConcurrentRuns= in jobd.conf, or jobd's descriptor limit
                (three a run, see jobd.conf(5)), allows no more runs at once, and it starts as soon as
                another run ends, in the order runs fell due; "user-runs-max":
                the job is a user's own (jobctl --user) and UserRunsMax= in jobd.conf allows that user
                no more runs at once; "overlap": the job's run in flight must end first
                (Overlap=queue or replace).
                """)
        case .runRetry:
            Entry(subject: "A failed job run will be retried", body: """
                Job @JOB@ failed and its Restart= asks for another try: retry @JOBD_ATTEMPT@ starts
                as run @JOBD_RUN_ID@ after the delay in the message (RestartSec=, growing with
                RestartSteps= up to RestartMaxDelaySec=). Once RestartLimit= retries have failed,
                the jobs in the job's OnFailure= are started.
                """)
        case .jobDisable:
            Entry(subject: "A job was disabled", body: """
                Job @JOB@ was disabled with jobctl disable: its triggers no longer start runs (each
                is logged as run.skip with JOBD_REASON=disabled), across reloads and restarts of jobd.
                Runs in flight go on; jobctl run still starts it. Undo it with: jobctl enable @JOB@
                """)
        case .runLeftovers:
            Entry(subject: "A job run left processes behind", body: """
                The main process of run @JOBD_RUN_ID@ of job @JOB@ ended, but @JOBD_LEFTOVERS@
                process(es) it started were still running in its cgroup (where jobd has a delegated
                one, Delegate=yes) or else in its process group. Unless the job has
                KillMode=process, they get SIGTERM, and SIGKILL after the job's TimeoutStopSec=, as
                systemd stops what is left of a service. A job that means to leave a daemon running
                should say KillMode=process; one that forgets to wait for its children should wait.
                """)
        case .jobEnable:
            Entry(subject: "A job was enabled again", body: """
                Job @JOB@ was enabled with jobctl enable: its triggers start runs again.
                """)
        case .runMail:
            Entry(subject: "A job run's output was mailed", body: """
                Job @JOB@ has MailTo=: what run @JOBD_RUN_ID@ wrote was handed to sendmail for its
                recipients, as cron mails a job's output to MAILTO (MailOn=output: whenever the run
                wrote anything; MailOn=failure: when it failed). Logged at warning priority when the
                mail could not be handed over (no sendmail installed, or it failed): the output is
                in the journal either way (jobctl logs @JOB@ --run @JOBD_RUN_ID@).
                """)
        case .runOutputDropped:
            Entry(subject: "Lines of a user's job run's output were not logged", body: """
                Run @JOBD_RUN_ID@ of job @JOB@, a user's own job, wrote more than that user's budget
                of journal lines (UserLogRateLimitBurst= lines in each UserLogRateLimitIntervalSec=
                of jobd.conf, 1000 in 30s by default), and @JOBD_DROPPED_COUNT@ of its lines were
                counted instead of logged. jobd writes every run's output into the journal itself,
                so all of it spends jobd.service's one journald rate limit: the budget keeps one
                user's output from making journald suppress root's entries. The lines still reached
                jobctl run --wait and the run's mail. Raise the budget in jobd.conf, or have the job
                write less.
                """)
        case .clockChange:
            Entry(subject: "The wall clock changed under jobd", body: """
                The machine was suspended for @JOBD_SUSPENDED_USEC@ microseconds, or the wall clock
                was set: @JOBD_CLOCK_JUMP_USEC@ microseconds beyond the suspend (forward when
                positive, back when negative). jobd re-armed its calendar jobs (OnCalendar=, Cron=)
                on the new time: an elapse that fell in the gap runs once at once, as the first
                elapse after the job's last trigger; the others in the gap are not run. jobctl why
                JOB names them, with the gap. A clock set back by up to 3 hours runs no elapse twice.
                """)
        case .runAbandoned:
            Entry(subject: "A job run was abandoned by a jobd that stopped", body: """
                Run @JOBD_RUN_ID@ of job @JOB@, started by an earlier jobd at @JOBD_START_USEC@
                (microseconds since the epoch), was still in flight when that jobd stopped without
                recording its end: it was killed (SIGKILL, an out-of-memory kill), it crashed, or
                the watchdog ended it. This jobd found the run in its runtime directory
                (/run/jobd/runs) at its start and could not follow it, as it follows the runs it
                adopts (run.adopt): its process was not recorded yet (started a moment before, or
                a fleet run's that had claimed its elapse), it ended with no exit status kept by
                jobd-keeper, or the job is no longer defined. (A run whose process had not started
                ran nothing and is not recorded at all, unless it held a fleet claim.)
                It recorded the run with the result abandoned, a failure: jobctl status and list
                show it, the metrics count it, and the job's OnFailure= jobs start. No Restart=
                retry follows, since nobody knows whether the command ran or finished its work.
                A process of the run that still runs is left running (jobd.service stops only its
                main process, so that runs outlive a restart): systemd-cgls -u jobd shows it, in
                the run's cgroup run-@JOBD_RUN_ID@ where runs have cgroups. Its output up to then is
                in the journal: journalctl JOBD_RUN_ID=@JOBD_RUN_ID@. Find why jobd stopped in
                journalctl -u jobd.
                """)
        case .jobOverdue:
            Entry(subject: "A job has not succeeded within its ExpectSuccessWithinSec=", body: """
                Job @JOB@ has ExpectSuccessWithinSec=, a dead man's switch, and no run of it
                succeeded in time: it fell overdue at @JOBD_DEADLINE_USEC@ (microseconds since the
                epoch; its last success plus the span, or, if it never succeeded, when it entered
                the configuration plus the span). Its runs failed, were skipped (disabled,
                Overlap=, a condition, the fleet) or never came (a schedule that no longer fits, jobd
                down). jobd starts the job's OnFailure= jobs (JOBD_RESULT=overdue), mails MailTo=,
                and the metrics say jobd_job_overdue 1; it says so once, until a run succeeds
                (job.overdue-cleared). See why with jobctl status @JOB@ and
                journalctl JOB=@JOB@ JOBD_EVENT=run.skip, JOBD_EVENT=run.exit.
                """)
        case .jobOverdueCleared:
            Entry(subject: "An overdue job succeeded again", body: """
                Job @JOB@, overdue since @JOBD_DEADLINE_USEC@ (microseconds since the epoch), had a
                successful run at @JOBD_LAST_SUCCESS_USEC@: its alarm is cleared (jobd_job_overdue 0)
                and its ExpectSuccessWithinSec= counts again from this success.
                """)
        case .crontabReplace:
            Entry(subject: "A user's crontab was installed", body: """
                crontab(1), run by uid @JOBD_CALLER_UID@, installed the crontab of
                @JOBD_CRONTAB_USER@ (uid @JOBD_CRONTAB_UID@) in cron's spool, as Debian's cron logs
                REPLACE. The crontab's lines are not in the journal; jobd reads the new file by
                itself (cron mode), and its lines are jobs named @JOBD_CRONTAB_USER@:crontab-HASH.
                """)
        case .crontabDelete:
            Entry(subject: "A user's crontab was removed", body: """
                crontab -r, run by uid @JOBD_CALLER_UID@, removed the crontab of
                @JOBD_CRONTAB_USER@ (uid @JOBD_CRONTAB_UID@) from cron's spool, as Debian's cron logs
                DELETE. jobd drops its lines' jobs by itself (cron mode).
                """)
        case .crontabList:
            Entry(subject: "A user's crontab was listed", body: """
                crontab -l, run by uid @JOBD_CALLER_UID@, read the crontab of @JOBD_CRONTAB_USER@
                (uid @JOBD_CRONTAB_UID@), as Debian's cron logs LIST. Logged at debug priority.
                """)
        case .runHandover:
            Entry(subject: "A job run was handed over to the next jobd", body: """
                systemctl restart jobd (or the package's upgrade) asked jobd to stop while run
                @JOBD_RUN_ID@ of job @JOB@ was in flight. jobd left the run's processes running, kept
                its record in /var/lib/jobd/runs and its output pipes in systemd's file descriptor
                store, and exited; jobd-keeper stays the run's parent and keeps its exit status. The
                next jobd adopts the run (run.adopt), logs the rest of its output and records its real
                end (run.exit), with its OnFailure=/OnSuccess= jobs, history, metrics and mail.
                """)
        case .runAdopt:
            Entry(subject: "A job run was adopted from the jobd before", body: """
                Run @JOBD_RUN_ID@ of job @JOB@ (pid @PID@) was started by an earlier jobd, which
                handed it over at a restart or was killed while it ran. This jobd follows it: its
                output goes on in the journal, and its end is recorded as any run's (run.exit), from
                the exit status jobd-keeper kept. A run whose process is gone and whose end nobody
                kept is recorded as abandoned instead (run.abandoned).
                """)
        case .daemonHandover:
            Entry(subject: "jobd handed its runs over and exited", body: """
                systemd asked jobd to stop as part of a restart (systemctl restart jobd, the package's
                upgrade): jobd released every owner and timer as at a stop, left its
                @JOBD_RUN_COUNT@ run(s) in flight running for the next jobd (run.handover) and exited
                0 without stopping them. A plain systemctl stop or a shutdown stops every run instead.
                """)
        case .runEntriesDropped:
            Entry(subject: "A user's run.skip, run.wait and run.retry entries were not logged", body: """
                The user with uid @JOBD_JOB_UID@ asked for more runs (or had more of them skipped,
                waiting or retried) than her budget of journal entries allows: the budget her jobs'
                output spends (UserLogRateLimitBurst= entries in each UserLogRateLimitIntervalSec= of
                jobd.conf, 1000 in 30s by default). Beyond it her run.skip, run.wait and run.retry
                entries, and the notes of a Condition…= that does not hold before a skip, are
                counted instead of logged, so that no user's requests can make journald
                suppress root's entries. The first one dropped is said by this entry; the next one
                logged is preceded by this entry with the count (@JOBD_DROPPED_COUNT@). jobctl run
                still answers each request with its fate.
                """)
        case .ownersInit:
            Entry(subject: "Job owners were created", body: """
                @JOBD_OWNER_COUNT@ job owner(s) were created for generation @JOBD_GENERATION@, at
                start-up or by a reload that added or changed many jobs: their ids are in the
                JOBD_OWNERS field as ranges (such as 1-4999,5001), their jobs in JOBD_JOBS in the same
                order. One entry names many owners so that the journal keeps every entry at
                thousands of jobs; when only a few owners are created, each gets an owner.init entry
                of its own. Logged at debug priority, for jobctl audit.
                """)
        case .ownersDeinit:
            Entry(subject: "Job owners were released", body: """
                @JOBD_OWNER_COUNT@ job owner(s), named in the JOBD_OWNERS field as ranges of owner
                ids, were released at shutdown or by a reload that changed or removed many jobs;
                their timers stopped with them. Each was recorded by its own release: an owner
                released later than the others gets an owner.deinit entry of its own. Logged at
                debug priority, for jobctl audit.
                """)
        case .timersInvalidate:
            Entry(subject: "Job timers were cancelled", body: """
                The timers of @JOBD_OWNER_COUNT@ job owner(s), named in the JOBD_OWNERS field as
                ranges of owner ids, were cancelled (@JOBD_REASON@): jobd is stopping, or a reload
                released their owners. When only a few are cancelled, each gets a timer.invalidate
                entry of its own. Logged at debug priority, for jobctl audit.
                """)
        case .logDropped:
            Entry(subject: "jobd dropped log entries while the journal took none", body: """
                jobd never lets a log call wait for the journal: entries wait in a bounded queue
                (8192 entries, 4 MiB) for jobd's logging thread, and while journald took nothing
                (stopped, restarting, a slow disk) the queue filled and @JOBD_DROPPED_COUNT@
                entries were dropped (by event: @JOBD_DROPPED_EVENTS@). Jobs ran on schedule
                meanwhile; jobctl status and jobctl list show their last runs. jobctl audit cannot
                vouch for this run of jobd and calls it incomplete. Look for what stalled journald
                (journalctl -u systemd-journald, disk space and speed).
                """)
        }
    }

    /// The whole catalog file: one entry per ``JobdEvent``, in declaration order, in the format
    /// `journalctl --update-catalog` reads (see `man journalctl`, "catalog").
    package static func render() -> String {
        var text = """
            # jobd's journal catalog: explanations shown by journalctl -x for jobd's events.
            # Generated from JobdCatalog.swift (JobdLogging); do not edit by hand.
            # Install as /usr/lib/systemd/catalog/jobd.catalog and run journalctl --update-catalog.

            """
        for kind in JobdEvent.allCases {
            let entry = entry(for: kind)
            text += """

                -- \(kind.messageID)
                Subject: \(entry.subject)
                Defined-By: jobd

                \(entry.body)

                """
        }
        return text
    }
}
