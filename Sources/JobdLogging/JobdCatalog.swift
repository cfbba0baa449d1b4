/// The journal catalog text for every ``JobdEvent``: what `journalctl -x` shows under an entry.
///
/// `systemd/jobd.catalog` is generated from ``render()``; a test checks that the file is up to date
/// (run it with `JOBD_UPDATE_CATALOG=1` to rewrite the file). `@FIELD@` in a body is replaced by the
/// entry's field of that name when journalctl shows it.
public enum JobdCatalog {
    /// The catalog entry of one event kind.
    public struct Entry: Sendable, Hashable {
        public let subject: String
        public let body: String
    }

    /// The entry for `kind`. The switch is exhaustive, so a new event kind cannot miss its text.
    public static func entry(for kind: JobdEvent) -> Entry {
        switch kind {
        case .daemonStart:
            Entry(subject: "jobd is starting", body: """
                jobd, the job scheduler daemon, has started and is reading its job files.
                Nothing runs until it reports that it is ready (daemon.ready). If that message does
                not follow, look for config.error entries: journalctl -t jobd -p warning
                """)
        case .daemonReady:
            Entry(subject: "jobd is ready and scheduling jobs", body: """
                jobd has loaded its job files, scheduled their timers and notified the service
                manager (READY=1). Jobs now run on schedule; their timers are logged as timer.schedule.
                """)
        case .daemonStop:
            Entry(subject: "jobd is stopping", body: """
                jobd is shutting down (STOPPING=1). Timers are cancelled; runs still in progress are
                stopped after their stop timeout. Runs missed while jobd is down are not caught up
                unless a job asks for it.
                """)
        case .daemonExit:
            Entry(subject: "jobd has stopped", body: """
                jobd finished shutting down and is about to exit. Every timer was invalidated and every
                job owner released before this message; the message says how many timers were still
                alive, which is 0 unless something leaked. An owner.deinit entry precedes this one for
                every owner of the last generation.
                """)
        case .reloadStart:
            Entry(subject: "jobd is reloading its job files", body: """
                jobd received a reload request (SIGHUP or systemctl reload) and is reading its job
                files again. The current generation keeps running until the new one has loaded.
                """)
        case .reloadDone:
            Entry(subject: "jobd reloaded its job files", body: """
                The new job files loaded without errors and are now in effect as generation
                @JOBD_GENERATION@. Jobs that were removed will not be scheduled again.
                """)
        case .reloadFailed:
            Entry(subject: "jobd could not reload its job files", body: """
                Reading the job files failed, so jobd kept the previous generation: nothing changed.
                The reason: @JOBD_REASON@
                Fix the file named in the config.error entries just before this one, then reload
                again with: systemctl reload jobd
                """)
        case .configError:
            Entry(subject: "A job file has an error", body: """
                @CONFIG_FILE@, line @CONFIG_LINE@: @JOBD_REASON@
                The job defined in that file is not loaded (or keeps its previous definition on a
                reload). Correct the line, then reload jobd: systemctl reload jobd
                """)
        case .generationLoad:
            Entry(subject: "jobd loaded a new generation of job definitions", body: """
                Generation @JOBD_GENERATION@ of the job definitions is now active. Every start-up
                and every successful reload makes a new generation.
                """)
        case .generationRetire:
            Entry(subject: "jobd retired an old generation of job definitions", body: """
                Generation @JOBD_GENERATION@ has no scheduled timers or running jobs left and was
                released. If this never follows a reload, something still holds on to it (see
                owner.retain and owner.leak).
                """)
        case .ownerInit:
            Entry(subject: "A job owner was created", body: """
                Owner @JOBD_OWNER@ of job @JOB@ was created for generation @JOBD_GENERATION@. Its
                timers live as long as it does. This is debugging information.
                """)
        case .ownerDeinit:
            Entry(subject: "A job owner was released", body: """
                Owner @JOBD_OWNER@ of job @JOB@ was released; its timers stopped with it. This is
                debugging information.
                """)
        case .ownerRetain:
            Entry(subject: "A job owner is kept alive after its generation ended", body: """
                Owner @JOBD_OWNER@ of job @JOB@ is still referenced after its generation was retired,
                because of: @JOBD_REASON@
                It is released when that finishes (for instance a run in progress). If it is not,
                an owner.leak follows.
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
                timer.fire entry follows when it does.
                """)
        case .timerFire:
            Entry(subject: "A job timer fired", body: """
                Timer @JOBD_TIMER@ of job @JOB@ fired; a run.start or run.skip follows.
                """)
        case .timerInvalidate:
            Entry(subject: "A job timer was cancelled", body: """
                Timer @JOBD_TIMER@ of job @JOB@ was cancelled, because the job was removed or
                changed by a reload, or its owner was released.
                """)
        case .runStart:
            Entry(subject: "A job run started", body: """
                Run @JOBD_RUN@ of job @JOB@ started as process @JOBD_PID@. Its output is logged as
                run.output entries; follow it with: journalctl -f JOBD_RUN=@JOBD_RUN@
                """)
        case .runExit:
            Entry(subject: "A job run finished", body: """
                Run @JOBD_RUN@ of job @JOB@ ended: @EXIT_CODE@, status @EXIT_STATUS@, after
                @JOBD_DURATION_USEC@ microseconds. A status other than 0 (or a signal) means the job
                failed: read its output with journalctl JOBD_RUN=@JOBD_RUN@
                """)
        case .runSkip:
            Entry(subject: "A job run was skipped", body: """
                Job @JOB@ was due but did not run: @JOBD_REASON@
                Usually the previous run is still going. If runs are skipped often, make the job
                faster or its schedule less frequent.
                """)
        case .runTimeout:
            Entry(subject: "A job run timed out", body: """
                Run @JOBD_RUN@ of job @JOB@ ran longer than its RuntimeMaxSec= and is being stopped:
                SIGTERM to its process group, then SIGKILL after its TimeoutStopSec=. Check its
                output (journalctl JOBD_RUN=@JOBD_RUN@) for where it hung, or raise RuntimeMaxSec=.
                """)
        case .runOutput:
            Entry(subject: "Output of a job run", body: """
                A line that run @JOBD_RUN@ of job @JOB@ wrote to its standard output or error.
                """)
        case .runStop:
            Entry(subject: "A job run is being stopped", body: """
                jobd sent SIGTERM to the process group of run @JOBD_RUN@ of job @JOB@: @JOBD_REASON@
                ("replaced": a new run of the job takes its place, Overlap=replace; "shutdown": jobd
                is stopping). If it has not exited by the job's TimeoutStopSec=, it gets SIGKILL.
                """)
        case .runKill:
            Entry(subject: "A job run was killed", body: """
                Run @JOBD_RUN@ of job @JOB@ did not exit within its TimeoutStopSec= after SIGTERM,
                so jobd sent SIGKILL to its process group. A job that needs longer to stop cleanly
                can be given a longer TimeoutStopSec=; one that ignores SIGTERM should be fixed.
                """)
        case .runWait:
            Entry(subject: "A job run waits for a free slot", body: """
                Job @JOB@ fell due, but MaxConcurrentRuns= in jobd.conf allows no more runs at
                once. Run @JOBD_RUN@ starts as soon as another run ends, in the order runs fell due.
                """)
        }
    }

    /// The whole catalog file: one entry per ``JobdEvent``, in declaration order, in the format
    /// `journalctl --update-catalog` reads (see `man journalctl`, "catalog").
    public static func render() -> String {
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
