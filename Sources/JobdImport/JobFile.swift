/// A job file being written: comments first, then `[Job]` and its assignments in order.
package struct JobFile: Sendable {
    /// The job's name; the file is `NAME.job`.
    package var name: String
    /// Comment lines, without their `# `.
    package var comments: [String] = []
    package var assignments: [(key: String, value: String)] = []

    package init(name: String) {
        self.name = name
    }

    mutating func comment(_ text: String) {
        // One comment line per line of text: a newline would end the comment.
        comments += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    mutating func set(_ key: String, _ value: String) {
        assignments.append((key, value))
    }

    /// The file's contents.
    package var text: String {
        var text = comments.map { $0.isEmpty ? "#\n" : "# \($0)\n" }.joined()
        text += "[Job]\n"
        for assignment in assignments { text += "\(assignment.key)=\(assignment.value)\n" }
        return text
    }
}
