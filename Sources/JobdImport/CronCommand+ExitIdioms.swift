extension CronCommand {
    /// The test a command stands on when it is `TEST && COMMAND` at its end, as cron.d files write
    /// `command -v debian-sa1 > /dev/null && debian-sa1 1 1` or `[ -x /usr/lib/x ] && /usr/lib/x`:
    /// cron never judged an exit status, but jobd does, and when the test fails the command's
    /// status is 1 in normal operation (issue 38). `nil` for anything else, a `||` after the test
    /// (`test -x X || …`) included.
    static func failingTestIdiom(_ command: String) -> String? {
        let trimmed = command.drop { $0 == " " || $0 == "\t" }
        guard let and = trimmed.firstRange(of: "&&") else { return nil }
        let test = trimmed[..<and.lowerBound].trimmingTrailingBlanks()
        let rest = trimmed[and.upperBound...]
        // Another list or a fallback after it: its status is not the test's.
        guard !rest.contains("||"), !rest.contains(";"), !test.contains("|"), !test.contains(";") else { return nil }
        let words = test.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let first = words.first else { return nil }
        let tests: Set<Substring> = ["test", "[", "[[", "which", "type", "hash"]
        if tests.contains(first) || (first == "command" && words.dropFirst().first.map { $0 == "-v" || $0 == "-V" } == true) {
            return String(test)
        }
        return nil
    }
}

private extension Substring {
    func trimmingTrailingBlanks() -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return self[startIndex..<end]
    }
}
