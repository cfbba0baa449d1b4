import Foundation
import JobdConfig
import JobdTestKit
import Testing

/// `EnvironmentFile=` as systemd reads it.
@Suite struct EnvironmentFileTests {
    let path = "/etc/jobd/backup.env"

    func parse(_ text: String) -> EnvironmentFile.Contents {
        EnvironmentFile.parse(text, path: path)
    }

    func values(_ text: String) -> [String] {
        parse(text).variables.map { "\($0.name)=\($0.value)" }
    }

    @Test func plainAssignmentsCommentsAndBlankLines() {
        #expect(values("""
            # a comment
            ; another
              TOKEN=abc123

            URL = https://example.org/x?a=b
            EMPTY=
            """) == ["TOKEN=abc123", "URL=https://example.org/x?a=b", "EMPTY="])
    }

    @Test func quotesAndEscapes() {
        #expect(values(#"""
            A='single $keeps \n all'
            B="double \"quoted\" \\ and \n"
            C=unquoted\ with\ escapes   
            D="a"b'c'
            """#) == [#"A=single $keeps \n all"#, #"B=double "quoted" \ and \n"#, "C=unquoted with escapes", "D=abc"])
    }

    @Test func continuationAndMultilineQuotes() {
        #expect(values("A=one \\\ntwo\nB=\"line1\nline2\"\nC=3\n") == ["A=one two", "B=line1\nline2", "C=3"])
    }

    @Test func badLinesAreSkippedNamingTheLineButNotTheValue() {
        let contents = parse("GOOD=1\nexport SECRET=hunter2\nno equals sign hunter2\n2BAD=x\n")
        #expect(contents.variables.map(\.name) == ["GOOD"])
        #expect(contents.skipped.map(\.line) == [2, 3, 4])
        #expect(contents.skipped.allSatisfy { $0.file == path && !$0.description.contains("hunter2") })
    }

    @Test func missingFileIsAnErrorUnlessOptional() throws {
        let missing = "/nonexistent/jobd-test.env"
        guard case .failure(let error) = EnvironmentFile(path: missing, optional: false).read() else {
            Issue.record("a missing file must be an error")
            return
        }
        #expect(error.file == missing)
        #expect(error.hint?.contains("EnvironmentFile=-\(missing)") == true)
        #expect(try EnvironmentFile(path: missing, optional: true).read().get() == EnvironmentFile.Contents())
    }
}
