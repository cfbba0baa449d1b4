import JobdConfig
@testable import JobdRunner
import Testing

/// Issue 39: what a run in flight holds only before its spawn (its spawn configuration), after its
/// end (its outcome, its mail) or when adopted is kept out of line: 8 bytes each in the run,
/// instead of the values' whole room (377 bytes for a spawn configuration alone).
struct OutOfLineTests {
    @Test func anOutOfLineValueIsEightBytesInItsHolderAndReadsBackAsWritten() {
        #expect(MemoryLayout<OutOfLine<SpawnConfiguration>>.size == 8)
        #expect(MemoryLayout<SpawnConfiguration?>.size > 300)
        var held = OutOfLine<[String]>(wrappedValue: nil)
        #expect(held.wrappedValue == nil)
        held.wrappedValue = ["/bin/backup"]
        held.wrappedValue?.append("--full")
        #expect(held.wrappedValue == ["/bin/backup", "--full"])
        #expect(held.wrappedValue.take() == ["/bin/backup", "--full"])
        #expect(held.wrappedValue == nil)
    }
}
