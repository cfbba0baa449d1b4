import JobdConfig
import Testing

/// Every key that takes a time span refuses one the scheduler cannot represent, with the file,
/// the line and the maximum (issue 20: `AccuracySec=1000y` trapped jobd).
@Suite struct SpanBoundsTests {
    let path = "/etc/jobd/jobs.d/big.job"

    func errors(_ line: String) -> [ConfigError] {
        switch JobFileReader.read(name: "big", path: path, text: "[Job]\nExecStart=/bin/true\nOnStartupSec=1\n\(line)\n") {
        case .success: []
        case .failure(let errors): errors.errors
        }
    }

    @Test(arguments: [
        "AccuracySec", "RandomizedDelaySec", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec",
        "RuntimeMaxSec", "TimeoutStopSec",
    ])
    func aSpanAboveTheMaximumIsAnErrorOnItsLine(key: String) throws {
        for value in ["1000y", "99999999999999999.5s", "584542y"] {
            let error = try #require(errors("\(key)=\(value)").first, "\(key)=\(value)")
            #expect(error.description.hasPrefix("\(path):4: error: \(key)=: invalid time span '\(value)'"))
            #expect(error.message.contains("longer than 100y"), "\(error)")
        }
        #expect(errors("\(key)=100y").isEmpty)
    }

    @Test func infinityStaysWhereItWasTaken() {
        for key in ["RuntimeMaxSec", "TimeoutStopSec", "OnUnitActiveSec"] {
            #expect(errors("\(key)=infinity").isEmpty, "\(key)")
        }
    }

    @Test func leakGraceSecIsBoundedToo() throws {
        guard case .failure(let failure) = DaemonSettings.read(path: "/etc/jobd/jobd.conf", text: "[Daemon]\nLeakGraceSec=1000y\n") else {
            Issue.record("LeakGraceSec=1000y was accepted")
            return
        }
        let error = try #require(failure.errors.first)
        #expect(error.location == "/etc/jobd/jobd.conf:2")
        #expect(error.message.contains("longer than 100y"))
    }
}
