import Dispatch
import JobdLocks
import Testing

/// The state writer's batching (issue 39): a key that changes at every run is written once a
/// pause with its latest value, and a flush (shutdown, a stamp read back) writes what waits at once.
@Suite struct CoalescingWriterTests {
    /// Within one pause, a thousand values of a key are one write, of the last; another key is its own.
    @Test func aBurstOfValuesIsOneWriteOfTheLast() {
        let written = LockedBox<[String]>([])
        let writer = CoalescingWriter<String>(pause: .seconds(3_600)) { key, value in written.withLock { $0.append("\(key)=\(value ?? "removed")") } }
        for count in 1...1_000 { writer.submit("backup", String(count)) }
        writer.submit("report", "1")
        #expect(written.withLock { $0 }.isEmpty, "nothing before the pause")
        writer.flush()
        #expect(written.withLock { $0 } == ["backup=1000", "report=1"])
        writer.flush()
        #expect(written.withLock { $0 }.count == 2, "a value is written once")
    }

    /// A removal is done at once, whatever the pause; a value replaced by its removal before its
    /// pause (a run that ended quickly) is never written (its record never reaches the disk).
    @Test func aRemovalIsAtOnceAndAValueRemovedInItsPauseIsNeverWritten() {
        let written = LockedBox<[String]>([])
        let arrived = DispatchSemaphore(value: 0)
        let writer = CoalescingWriter<String>(pause: .seconds(3_600)) { key, value in
            written.withLock { $0.append("\(key)=\(value ?? "removed")") }
            arrived.signal()
        }
        writer.submit("run-1", "pid=42")
        writer.submit("run-1", nil)
        #expect(arrived.wait(timeout: .now() + 60) == .success, "removed within a minute")
        writer.submit("run-2", "pid=43")
        writer.flush()
        #expect(written.withLock { $0 } == ["run-1=removed", "run-2=pid=43"])
    }

    /// Without a flush, a value is written once its pause has passed, and one handed in after
    /// that write starts the draining again.
    @Test func aValueIsWrittenAfterThePauseAndTheNextAgain() {
        let written = LockedBox<[String]>([])
        let arrived = DispatchSemaphore(value: 0)
        let writer = CoalescingWriter<String>(pause: .milliseconds(1)) { key, value in
            written.withLock { $0.append("\(key)=\(value ?? "")") }
            arrived.signal()
        }
        writer.submit("backup", "1")
        #expect(arrived.wait(timeout: .now() + 60) == .success, "written within a minute")
        writer.submit("backup", "2")
        #expect(arrived.wait(timeout: .now() + 60) == .success, "written within a minute")
        #expect(written.withLock { $0 } == ["backup=1", "backup=2"])
    }
}
