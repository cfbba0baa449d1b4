import FoundationEssentials
import Glibc
import JobdConfig
import JobdPolicy
import JobdControl
import JobdImport
import SystemPackage

/// `crontab`: Debian's crontab(1) in front of jobd, the same binary started by that name. It runs
/// with the caller's own privileges only (no setgid bit): it reads the file given and runs the
/// editor as the caller, and jobd, root, writes cron's spool on the caller's behalf over the
/// control socket, deciding whose crontab it is from the connection's credentials
/// (``CrontabArguments`` reads the arguments; jobd's CrontabRequests decides).
package enum Crontab {
    /// Runs crontab on the process's arguments and exits with Debian's statuses: 0, or 1 for any error.
    package static func main() -> Never {
        var standardError = StandardError()
        let arguments: CrontabArguments
        switch CrontabArguments.parse(Array(CommandLine.arguments.dropFirst())) {
        case .failure(let error):
            print("crontab: usage error: \(error.message)\n\(CrontabArguments.usage)", to: &standardError)
            exit(1)
        case .success(let parsed): arguments = parsed
        }
        let session = Session(arguments: arguments)
        do {
            switch arguments.operation {
            case .list: try session.list()
            case .remove: try session.remove()
            case .edit: try session.edit()
            case .replace(let file): try session.replace(file)
            }
        } catch {
            print(error.message, to: &standardError)
            exit(1)
        }
        exit(0)
    }

    /// Why crontab stops, said on stderr; the exit status is 1.
    struct Failure: Error {
        var message: String
        /// jobd's code for it, when jobd refused: `invalid-job` for a crontab with errors.
        var code: ControlErrorCode?
        init(_ message: String, code: ControlErrorCode? = nil) {
            self.message = message
            self.code = code
        }
    }

    /// One run of crontab against jobd.
    struct Session {
        let arguments: CrontabArguments
        var environment: [String: String] { ProcessInfo.processInfo.environment }
        /// Whose crontab, for messages.
        var user: String { arguments.user ?? UserScope.userName }

        /// Sends `request` (about `-u`'s user, if any) and returns jobd's answer; an error answer
        /// of jobd's is thrown with its words.
        func ask(_ command: ControlRequest.Command, text: String? = nil, path: String? = nil) throws(Failure) -> ControlResponse {
            var request = ControlRequest(command: command)
            request.user = arguments.user
            request.text = text
            request.path = path
            let directory = ControlProtocol.defaultRuntimeDirectory(environment: environment)
            let response: ControlResponse
            do {
                response = try ControlClient(runtimeDirectory: directory).exchange(request)
            } catch {
                switch error.code {
                case .noDaemon:
                    throw Failure("crontab: jobd does not answer at \(directory)/\(ControlProtocol.socketName): this crontab keeps "
                        + "crontabs through jobd, which must run (systemctl start jobd)")
                // jobd's refusal in Debian's own words ("You (alice) are not allowed…", "must be privileged to use -u").
                case .refused: throw Failure(error.message, code: .permissionDenied)
                default: throw Failure("crontab: \(error.message)")
                }
            }
            if response.type == .error { throw Failure(response.message ?? "crontab: jobd refused the request", code: response.code) }
            return response
        }

        /// The crontab as the spool holds it; `nil` when there is none.
        func current() throws(Failure) -> String? {
            try ask(.crontabList).text
        }

        func list() throws(Failure) {
            guard let text = try current() else { throw Failure("no crontab for \(user)") }
            let shown = CrontabHeader.listsHeader(noHeaderVariable: environment["CRONTAB_NOHEADER"]) ? text : CrontabHeader.strip(text)
            print(shown, terminator: "")
        }

        func remove() throws(Failure) {
            if arguments.asksBeforeRemoving {
                guard try current() != nil else { throw Failure("no crontab for \(user)") }
                guard Self.confirm("crontab: really delete \(user)'s crontab? (y/n) ", again: "Please enter Y or N: ") else { return }
            }
            _ = try ask(.crontabRemove)
        }

        func replace(_ file: String) throws(Failure) {
            let text = try Self.read(file)
            let saved = try ask(.crontabInstall, text: text, path: file)
            if let warnings = saved.message { Self.say(warnings) }
        }

        /// Reads the crontab to install as the caller: `-` is standard input.
        static func read(_ file: String) throws(Failure) -> String {
            let bytes: [UInt8]
            if file == "-" {
                bytes = readAll(STDIN_FILENO)
            } else {
                let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
                guard fd >= 0 else { throw Failure("\(file): \(String(cString: strerror(errno)))") }
                defer { close(fd) }
                var status = stat()
                guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw Failure("\(file): Not a regular file.") }
                bytes = readAll(fd)
            }
            guard bytes.count <= CrontabSpool.maximumBytes else {
                throw Failure("crontab: \(file) is larger than \(CrontabSpool.maximumBytes) bytes, the most jobd takes")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let line = 1 + (String(decoding: bytes, as: UTF8.self).unicodeScalars.prefix { $0 != "\u{FFFD}" }.filter { $0 == "\n" }.count)
                throw Failure("\(file):\(line): error: bytes that are not UTF-8 text; jobd keeps crontabs as UTF-8 text\n"
                    + "errors in crontab file, can't install.")
            }
            return text
        }

        /// Every byte from `fd`, up to one more than a crontab may have.
        static func readAll(_ fd: Int32) -> [UInt8] {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 8_192)
            while bytes.count <= CrontabSpool.maximumBytes {
                guard let count = try? chunk.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }),
                      count > 0 else { break }
                bytes += chunk[..<count]
            }
            return bytes
        }

        /// Asks `question` on stdout until the answer starts with y or n, as Debian's crontab does;
        /// the end of input is a no.
        static func confirm(_ question: String, again: String) -> Bool {
            print(question, terminator: "")
            fflush(nil)
            while let answer = readLine() {
                switch answer.first?.lowercased() {
                case "y": return true
                case "n": return false
                default: say(again, terminator: "")
                }
            }
            return false
        }

        static func say(_ message: String, terminator: String = "\n") {
            var standardError = StandardError()
            print(message, terminator: terminator, to: &standardError)
        }
    }
}
