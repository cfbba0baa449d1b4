import JobdConfig
import Testing

/// Continuation lines are joined in place (issue 20: 250,000 of them took 4.3 s, on the main loop
/// at a reload). By behaviour only: the time is a benchmark figure (jobd-benchmarks calendar).
@Suite struct LongContinuationTests {
    @Test func aQuarterMillionContinuationLinesJoinIntoOneValue() throws {
        let count = 250_000
        let text = "[Job]\nDescription=start \\\n" + String(repeating: "word \\\n", count: count)
            + "end\nOnStartupSec=1h\nExecStart=/bin/true\n"
        let definition = try JobFileReader.read(name: "long", path: "/long.job", text: text).get()
        let words = try #require(definition.description).split(separator: " ", omittingEmptySubsequences: true)
        #expect(words.count == count + 2)
        #expect(words.first == "start" && words.last == "end")
    }

    @Test func aContinuationThatEndsTheFileAndCommentsBetweenAreAsBefore() throws {
        let (file, errors) = UnitFile.parse("[Job]\nA=1 \\\n# skipped\n2 \\\n; skipped\n3 \\", path: "/x")
        #expect(errors.isEmpty)
        #expect(file.assignments.map(\.value) == ["1  2  3"])
        #expect(file.assignments.map(\.line) == [2])
    }
}
