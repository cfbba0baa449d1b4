import Glibc

/// `print(…, to: &standardError)` for messages that are not output.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        while !bytes.isEmpty {
            let written = Glibc.write(2, bytes, bytes.count)
            if written <= 0 { return }
            bytes.removeFirst(written)
        }
    }
}
