@testable import JobdDaemon
import JobdTimers
import Testing

/// One write to a crontab is one reload, however many inotify events and reads it takes
/// (issue 38): the decision over event batches, on fixed instants.
@Suite struct CronChangeDebounceTests {
    static func at(_ milliseconds: UInt64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: 1_000_000_000 + milliseconds * 1_000_000)
    }

    /// A created file's IN_CREATE and, 190 ms later, its IN_CLOSE_WRITE (what cp into cron.d
    /// does): two reads, one reload once the file is quiet, naming the file once.
    @Test func aCreateAndItsCloseAreOneReload() {
        var debounce = CronChangeDebounce()
        debounce.heard(["/etc/cron.d/backup"], at: Self.at(0))
        #expect(debounce.due(at: Self.at(100)) == nil)
        debounce.heard(["/etc/cron.d/backup"], at: Self.at(190))
        #expect(debounce.due(at: Self.at(300)) == nil, "the close prolongs the wait")
        #expect(debounce.deadline == Self.at(490))
        #expect(debounce.due(at: Self.at(490)) == "/etc/cron.d/backup")
        #expect(debounce.due(at: Self.at(5_000)) == nil, "and nothing more after it")
        #expect(!debounce.isPending)
    }

    /// An editor's save of /etc/crontab: rename away, create, close, chmod, in separate reads;
    /// then another file a minute later is a reload of its own.
    @Test func anEditorsSaveIsOneReloadAndALaterChangeAnother() {
        var debounce = CronChangeDebounce()
        for (step, time) in [0, 20, 60, 80].enumerated() {
            debounce.heard(["/etc/crontab"], at: Self.at(UInt64(time)))
            #expect(debounce.due(at: Self.at(UInt64(time) + 10)) == nil, "step \(step)")
        }
        #expect(debounce.due(at: Self.at(380)) == "/etc/crontab")
        debounce.heard(["/var/spool/cron/crontabs/alice"], at: Self.at(60_000))
        debounce.heard(["/etc/cron.d/php"], at: Self.at(60_050))
        #expect(debounce.due(at: Self.at(60_350)) == "/var/spool/cron/crontabs/alice, /etc/cron.d/php")
    }

    /// Events about nothing cron reads (an editor's swap file) start no wait; a file written
    /// without pause still reloads within the longest wait.
    @Test func onlyCronsFilesCountAndABusyFileWaitsNoLongerThanTheLongest() {
        var debounce = CronChangeDebounce(quiet: .milliseconds(300), longest: .seconds(2))
        debounce.heard([], at: Self.at(0))
        #expect(!debounce.isPending && debounce.deadline == nil)
        var time: UInt64 = 0
        var reloads: [UInt64] = []
        while time < 3_000 {
            debounce.heard(["/etc/cron.d/busy"], at: Self.at(time))
            if debounce.due(at: Self.at(time)) != nil { reloads.append(time) }
            time += 100
        }
        #expect(reloads == [2_000])
    }
}
