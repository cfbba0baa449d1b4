import Foundation
import JobdTestKit

/// A manual page's scdoc source, `docs/man/NAME.SECTION.scd`, read the way a test needs it: the
/// keys it defines, its subsections, the options it names.
struct ManPageSource {
    let name: String
    let text: String

    static let directory = DaemonProcess.packageRoot() + "/docs/man"

    /// Every page's name, such as `jobd.job.5`.
    static func all() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".scd") }.map { String($0.dropLast(4)) }.sorted()
    }

    init(_ name: String) throws {
        self.name = name
        text = try String(contentsOfFile: Self.directory + "/\(name).scd", encoding: .utf8)
    }

    /// The keys the page defines: the terms of its definition lists that are keys, lines such as
    /// `*User=*, *Group=*` followed by a tab-indented description.
    var definedKeys: [String] {
        let lines = text.components(separatedBy: "\n")
        var keys: [String] = []
        for (index, line) in lines.enumerated() where index + 1 < lines.count && lines[index + 1].hasPrefix("\t") {
            guard line.wholeMatch(of: #/\*[A-Za-z]+=\*(, \*[A-Za-z]+=\*)*/#) != nil else { continue }
            keys += line.matches(of: #/\*([A-Za-z]+)=\*/#).map { String($0.output.1) }
        }
        return keys
    }

    /// The text of the subsection headed `## title`, up to the next heading; nil without one.
    func subsection(_ title: String) -> String? {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "## " + title) else { return nil }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("#") } ?? lines.endIndex
        return lines[(start + 1)..<end].joined(separator: "\n")
    }

    /// The titles of the page's `## ` subsections.
    var subsections: [String] {
        text.components(separatedBy: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
    }

    /// The long options (`--name`) that `help` names, but `--help` and `--version`, which every
    /// command has.
    static func longOptions(in help: String) -> Set<String> {
        Set(help.matches(of: #/--[a-z][a-z-]*[a-z]/#).map { String($0.output) }).subtracting(["--help", "--version"])
    }
}
