import JobdConfig
import Testing

/// Job files are read by byte, as systemd reads them (issue 19): every byte the syntax acts on is
/// ASCII, and any other text passes through as it was written.
@Suite struct ByteParsingTests {
    @Test func textBeyondASCIIPassesThroughKeysValuesAndWords() throws {
        let job = try JobFileReader.read(name: "job", path: "/j/job.job", text: """
            [Job]
            Description=Sauvegarde \u{E9}t\u{E9} \u{1F600} \\
              suite
            ExecStart=/bin/echo "caf\u{E9} \u{1F600}" na\u{EF}ve\\x41 \\u00e9
            Environment="GREETING=gr\u{FC}\u{DF} dich" MOOD=\u{1F600}
            OnStartupSec=1h

            """).get()
        #expect(job.description == "Sauvegarde \u{E9}t\u{E9} \u{1F600}  suite", "the space before the backslash stays")
        #expect(job.command.argv(environment: [:]) == ["/bin/echo", "caf\u{E9} \u{1F600}", "na\u{EF}veA", "\u{E9}"])
        #expect(job.environment.map { "\($0.name)=\($0.value)" } == ["GREETING=gr\u{FC}\u{DF} dich", "MOOD=\u{1F600}"])
    }

    /// A `#` or `;` that starts a line starts a comment whatever follows it, a combining mark too
    /// (read by character, `#` and a combining mark were one character that was not `#`).
    @Test func aCommentIsACommentWhateverFollowsItsMark() throws {
        let job = try JobFileReader.read(name: "job", path: "/j/job.job", text: "[Job]\n#\u{301} not a key\n;\u{301}\nExecStart=/bin/true\nOnStartupSec=1h\n").get()
        #expect(job.command.text == "/bin/true")
    }
}
