import Foundation
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// The key table (``JobFileKey``) is what the manual and the README describe: the README's table
/// of job keys names only keys of the table (jobd.job(5), not the README, is where every key must
/// be, so that a new key needs no README change), and jobd.job(5)'s USER JOBS puts each key in the
/// paragraph of the user policy the table gives it, so that neither the page nor the table can
/// change alone (issue 37).
@Suite struct KeyTableDocumentationTests {
    /// Families the README names as one row: `Limit…=` and the conditions' `Assert…=` forms.
    static let readmeFamilies = ["Limit", "Assert"]

    @Test func theReadmesTableOfJobKeysNamesOnlyKeysOfTheTable() throws {
        let readme = try String(contentsOfFile: DaemonProcess.packageRoot() + "/README.md", encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Job files\n").last?.components(separatedBy: "\n## ").first)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count > 20, "the README's table of job keys is not where it was")
        for row in rows {
            let first = row.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for match in first.matches(of: /`([A-Za-z]+)(…)?=`/) where match.output.2 == nil {
                #expect(JobFileKey(name: String(match.output.1)) != nil, "the README's table of job keys names \(match.output.1)=, no key of the table")
            }
        }
        for family in Self.readmeFamilies {
            #expect(readme.contains("`\(family)…=`"), "the README names no `\(family)…=` family")
        }
    }

    /// The paragraphs of USER JOBS, each opening with the words of its class.
    static func userJobsParagraphs() throws -> [String: String] {
        let page = try ManPageSource("jobd.job.5").text
        let section = try #require(page.components(separatedBy: "\n# USER JOBS\n").last?.components(separatedBy: "\n# ").first)
        var paragraphs: [String: String] = [:]
        for paragraph in section.components(separatedBy: "\n\n") {
            for opening in ["Any value:", "Checked:", "Any value too", "Never:"] where paragraph.hasPrefix(opening) {
                paragraphs[opening] = paragraph.replacingOccurrences(of: "\n", with: " ")
            }
        }
        return paragraphs
    }

    @Test func jobdJobListsEveryKeyUnderUserJobsAsTheTablesPolicySays() throws {
        let paragraphs = try Self.userJobsParagraphs()
        #expect(paragraphs.count == 4, "USER JOBS has no paragraph of each class: \(paragraphs.keys.sorted())")
        for key in JobFileKey.all {
            let expected: String = switch key.userPolicy {
            case .free: "Any value:"
            case .checked, .bounded: "Checked:"
            case .sandbox: "Any value too"
            case .rootOnly: "Never:"
            }
            let family = key.name.hasPrefix("Limit") ? "*Limit...=*"
                : key.name.hasPrefix("Condition") || key.name.hasPrefix("Assert") ? "*Condition...=* and *Assert...=*" : nil
            let named = paragraphs.filter { $0.value.contains("*\(key.name)=*") || family.map($0.value.contains) == true }.map(\.key)
            #expect(named == [expected], "jobd.job(5) USER JOBS: \(key.name)= is \(key.userPolicy) in the key table, named under \(named)")
        }
    }
}
