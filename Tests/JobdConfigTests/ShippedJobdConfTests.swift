import Foundation
@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile
import JobdTestKit
import Testing

/// `etc/jobd/jobd.conf`, which scripts/install and the package put in /etc/jobd: every key, each
/// commented out with its default, so the file changes nothing until an administrator edits it.
@Suite struct ShippedJobdConfTests {
    let path = DaemonProcess.packageRoot() + "/etc/jobd/jobd.conf"

    @Test func asShippedItSetsNothing() throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try DaemonSettings.read(path: path, text: text).get() == DaemonSettings())
        let active = text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0 != "[Daemon]" && $0 != "[Cron]" }
        #expect(active.isEmpty, "lines that are not comments: \(active)")
    }

    @Test func everyKeyIsThereCommentedOutWithItsDefault() throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let commented = text.split(separator: "\n").filter { $0.wholeMatch(of: #/#[A-Za-z]+=.*/#) != nil }
        #expect(commented.map { String($0.dropFirst().prefix { $0 != "=" }) }.sorted() == (DaemonSettings.keys + CronSettings.keys).sorted())
        let uncommented = text.split(separator: "\n").map { commented.contains($0) ? String($0.dropFirst()) : String($0) }
        #expect(try DaemonSettings.read(path: path, text: uncommented.joined(separator: "\n")).get() == DaemonSettings())
    }
}
