import JobdConfig
import Testing

/// Values that would start runs continuously or be cut silently are errors on their line
/// (issue 20: `OnUnitActiveSec=0` started about 500 runs a second; a NUL cut `ExecStart=`).
@Suite struct HotLoopAndNulTests {
    let path = "/etc/jobd/jobs.d/spin.job"

    func errors(_ text: String) -> [ConfigError] {
        switch JobFileReader.read(name: "spin", path: path, text: text) {
        case .success: []
        case .failure(let errors): errors.errors
        }
    }

    @Test(arguments: ["0", "1us", "99ms", "0.09s"])
    func unitActiveBelowTheFloorIsAnError(value: String) throws {
        let found = errors("[Job]\nExecStart=/bin/true\nOnUnitActiveSec=\(value)\n")
        let error = try #require(found.first)
        #expect(found.count == 1, "no second 'no trigger' error")
        #expect(error.location == "\(path):3")
        #expect(error.message.contains("shorter than 100ms"), "\(error)")
        #expect(error.message.contains("continuously"))
    }

    @Test(arguments: ["0", "1us", "999us"])
    func unitInactiveBelowTheFloorIsAnError(value: String) throws {
        let error = try #require(errors("[Job]\nExecStart=/bin/true\nOnUnitInactiveSec=\(value)\n").first)
        #expect(error.location == "\(path):3")
        #expect(error.message.contains("shorter than 1ms"), "\(error)")
    }

    @Test func theFloorsThemselvesAndOnStartupSecZeroAreAccepted() {
        #expect(errors("[Job]\nExecStart=/bin/true\nOnUnitActiveSec=100ms\nOnUnitInactiveSec=1ms\nOnStartupSec=0\n").isEmpty)
    }

    @Test(arguments: [
        "ExecStart=/bin/echo a\u{0}b", "Environment=A=x\u{0}y", "Description=a\u{0}", "OnCalendar=daily\u{0}",
        "X-Ignored=\u{0}",
    ])
    func aNulByteInAnyLineIsAnErrorOnThatLine(line: String) throws {
        let found = errors("[Job]\nOnStartupSec=1\nExecStart=/bin/true\n\(line)\n")
        let error = try #require(found.first { $0.line == 4 }, "\(found)")
        #expect(error.message.contains("NUL"))
    }

    @Test func aNulInAnEnvironmentFileSkipsThatLineNamingIt() {
        let contents = EnvironmentFile.parse("A=1\nB=x\u{0}y\nC=3\n", path: "/etc/jobd/env")
        #expect(contents.variables.map(\.name) == ["A", "C"])
        #expect(contents.skipped.map(\.line) == [2])
        #expect(contents.skipped.first?.message.contains("NUL") == true)
    }
}
