import Foundation

/// An `EDITOR` for tests of `jobctl --user edit` and `crontab -e`: a script that writes a given
/// text over the copy it is given, as a user who edits and saves would.
package enum ScriptedEditor {
    /// The environment (`EDITOR` and the variable the script reads) of an editor that writes
    /// `text`; its files go in `directory`, which every user may read.
    package static func environment(writing text: String, in directory: String) throws -> [String: String] {
        let file = directory + "/edit-" + UUID().uuidString
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let editor = directory + "/editor.sh"
        try "#!/bin/sh\ncat \"$JOBD_TEST_TEXT\" > \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        return ["EDITOR": editor, "JOBD_TEST_TEXT": file]
    }
}
