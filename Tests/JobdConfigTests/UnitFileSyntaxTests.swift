import JobdConfig
import Testing

/// systemd.syntax(7) as job files use it.
@Suite struct UnitFileSyntaxTests {
    func definition(_ text: String) throws -> JobDefinition {
        try JobFileReader.read(name: "job", path: "/j/job.job", text: text).get()
    }

    @Test func commentsBlankLinesAndWhitespaceAroundEquals() throws {
        let job = try definition("""
            # a comment
            ; another comment

            [Job]
              Description = Nightly backup
            ExecStart = /usr/bin/backup --all
            OnStartupSec=   5s
            """)
        #expect(job.description == "Nightly backup")
        #expect(job.command.argv(environment: [:]) == ["/usr/bin/backup", "--all"])
        #expect(job.triggers == [.startup(.seconds(5))])
    }

    @Test func backslashContinuesALineAndCommentsInsideAreSkipped() throws {
        let job = try definition("""
            [Job]
            ExecStart=/usr/bin/rsync \\
            # the source
              --archive \\
              /srv /backup
            OnStartupSec=1
            """)
        #expect(job.command.argv(environment: [:]) == ["/usr/bin/rsync", "--archive", "/srv", "/backup"])
    }

    @Test func repeatedListKeysAppendAndAnEmptyAssignmentResets() throws {
        let job = try definition("""
            [Job]
            ExecStart=/bin/true
            OnStartupSec=1
            OnUnitActiveSec=1h
            OnUnitActiveSec=
            OnUnitActiveSec=30min
            OnUnitInactiveSec=10s
            Environment=A=1 B=2
            Environment=
            Environment=C=3 "D=four five"
            Environment=C=33
            """)
        #expect(job.triggers == [.startup(.seconds(1)), .unitActive(.seconds(1800)), .unitInactive(.seconds(10))])
        #expect(job.environment.map { "\($0.name)=\($0.value)" } == ["C=3", "D=four five", "C=33"])
    }

    @Test func xPrefixedSectionsAndKeysAreIgnored() throws {
        let job = try definition("[Job]\nExecStart=/bin/true\nOnStartupSec=1\nX-Owner=ops\n[X-Notes]\nAnything=goes\n")
        #expect(job.name == "job")
    }

    @Test func crlfLineEndings() throws {
        let job = try definition("[Job]\r\nExecStart=/bin/true\r\nOnStartupSec=2\r\n")
        #expect(job.triggers == [.startup(.seconds(2))])
    }

    @Test func definitionsCompareBySettings() throws {
        let a = try definition("[Job]\nExecStart=/bin/true\nOnStartupSec=1\n")
        let b = try definition("# same job\n[Job]\nOnStartupSec=1s\nExecStart=/bin/true\n")
        let c = try definition("[Job]\nExecStart=/bin/true\nOnStartupSec=2\n")
        #expect(a == b)
        #expect(a != c)
    }
}

@Suite struct ExecCommandTests {
    func argv(_ text: String, _ environment: [String: String] = [:]) throws -> [String] {
        try ExecCommand.parse(text).argv(environment: environment)
    }

    @Test func quotingAndEscapes() throws {
        #expect(try argv(#"/bin/echo "hello world" 'single $quoted' a"b c"d"#)
            == ["/bin/echo", "hello world", "single $quoted", "ab cd"])
        #expect(try argv(#"/bin/printf a\tb\x41\101\s\\ \"q\""#) == ["/bin/printf", "a\tbAA \\", "\"q\""])
        #expect(try argv(#"/bin/echo 100%% \;"#) == ["/bin/echo", "100%", ";"])
    }

    @Test func variablesExpandFromTheJobEnvironment() throws {
        let environment = ["FLAGS": "-a  -b", "DIR": "/srv/data dir"]
        #expect(try argv("/bin/ls $FLAGS ${DIR} x${DIR}y $$HOME", environment)
            == ["/bin/ls", "-a", "-b", "/srv/data dir", "x/srv/data diry", "$HOME"])
        #expect(try argv("/bin/ls $UNSET end", environment) == ["/bin/ls", "end"])
        #expect(try argv(#"/bin/echo "${DIR}/x""#, environment) == ["/bin/echo", "/srv/data dir/x"])
    }

    /// As systemd 252 (`replace_env_argv`): quotes do not stop `${NAME}` or `$$`, and a braceless
    /// `$NAME` inside a word or inside quotes stays for the shell, so a unit's shell line moves over.
    @Test func variablesInsideQuotesAndWordsAsSystemd() throws {
        let environment = ["DIR": "/srv", "HOME": "/root"]
        #expect(try argv(#"/bin/sh -c 'echo $$HOME ${DIR} $HOME; awk "{ print $2 }"' x$DIR "$$x" "${DIR}""#, environment)
            == ["/bin/sh", "-c", #"echo $HOME /srv $HOME; awk "{ print $2 }""#, "x$DIR", "$x", "/srv"])
        // systemd 252 would silently expand this to nothing; jobd says what to write instead.
        #expect(throws: (any Error).self) { try ExecCommand.parse(#"/bin/sh -c 'echo ${X:-default}'"#) }
        #expect(try argv(#"/bin/sh -c 'echo $${X:-default}'"#) == ["/bin/sh", "-c", "echo ${X:-default}"])
        let error = JobFileReader.read(name: "j", path: "/j.job", text: "[Job]\nOnStartupSec=1\nExecStart=/bin/sh -c 'echo ${X:-d}'\n")
        guard case .failure(let errors) = error else { Issue.record("expected an error"); return }
        #expect(errors.errors.first?.description.contains("write '$${X:-d}' to leave it to a shell") == true)
    }

    @Test func dashPrefixIgnoresFailure() throws {
        let command = try ExecCommand.parse("-/usr/bin/might-fail")
        #expect(command.ignoresFailure)
        #expect(command.executable == "/usr/bin/might-fail")
    }

    @Test func bareNameIsLookedUpLater() throws {
        #expect(try ExecCommand.parse("backup --all").executable == "backup")
    }

    /// Issue 38: the words `jobctl check` warns about, which a shell would read as `|`, `>`, `&&`
    /// or `;` but which reach the program as arguments; never one that is quoted or escaped.
    @Test func shellOperatorWordsAreThoseAShellWouldReadAsOperators() throws {
        func words(_ text: String) throws -> [String] { try ExecCommand.parse(text).shellOperatorWords }
        #expect(try words("/usr/bin/du -sh /srv | tail -1") == ["|"])
        #expect(try words("/usr/bin/updatedb 2>/dev/null") == ["2>/dev/null"])
        #expect(try words("/usr/bin/test -d /srv && /usr/bin/backup") == ["&&"])
        #expect(try words("/usr/bin/du -sh /srv; /bin/rm -f /tmp/x") == ["/srv;"])
        #expect(try words(#"/usr/bin/find /tmp -name x -exec rm {} \;"#).isEmpty)
        #expect(try words(#"/usr/bin/printf %%s "|" 'a;' "b && c""#).isEmpty)
        #expect(try words("/usr/bin/rsync -a /srv/ backup:/srv/").isEmpty)
    }
}
