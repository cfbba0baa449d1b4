import Glibc
package import Testing

/// What a test needs of the machine and may not have: without it the test is cancelled, loudly
/// (a line on stderr), or fails where CI runs (`CI=true`), which must have everything.
package enum Requirement {
    /// Cancels (or, under `CI=true`, fails) the calling test unless it runs as root.
    package static func root(_ why: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard getuid() != 0 else { return }
        try unmet("needs root " + why, sourceLocation: sourceLocation)
    }

    /// Cancels (or, under `CI=true`, fails) the calling test unless every one of `paths` exists:
    /// the programs and files a test compares with or runs (`why` says which test and what for;
    /// scripts/setup --test installs them all). Returns `paths`' first, for a single tool.
    @discardableResult
    package static func tools(_ paths: String..., for why: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let missing = paths.filter { access($0, F_OK) != 0 }
        if !missing.isEmpty {
            try unmet("\(why) needs \(missing.joined(separator: ", ")) (scripts/setup --test installs it)", sourceLocation: sourceLocation)
        }
        return paths[0]
    }

    /// Cancels the calling test with `message`, or fails it under `CI=true`.
    package static func unmet(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if let ci = getenv("CI"), String(cString: ci) == "true" {
            Issue.record(Comment(rawValue: message + " (CI=true: failing instead of skipping)"), sourceLocation: sourceLocation)
        }
        let line = Array("\n*** SKIPPED: \(message) ***\n\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        try Test.cancel(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
