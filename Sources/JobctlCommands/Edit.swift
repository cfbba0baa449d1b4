package import ArgumentParser
import Glibc
import JobdControl

extension Jobctl {
    /// `jobctl --user edit JOB`: one of the caller's own jobs in their editor, as `crontab -e`.
    package struct Edit: ParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit one of your own jobs in your editor, as crontab -e does (jobctl --user edit JOB).",
            discussion: """
                Opens a copy of your job JOB (jobd names it USER:JOB), or a new one, in $VISUAL, \
                else $EDITOR, else editor, else vi. When the editor exits, jobd checks the copy as \
                your job: one that has errors is not taken; they are printed with the copy's file \
                and line and, on a terminal, you may edit again. An unchanged copy changes nothing; a \
                copy left empty removes the job. jobd keeps the job in its spool (/var/spool/jobd) and runs \
                it as you, always; jobd.job(5) lists the keys a user's job may set. Exit status: 0 \
                taken, unchanged or removed; 1 errors; 2 no daemon; 4 jobd refuses you (users.allow, \
                users.deny).
                """)

        @OptionGroup var runtime: RuntimeOptions

        @Argument(help: "The job's name, without your user name.")
        var job: String

        package init() {}

        package func run() throws {
            var standardError = StandardError()
            let user = UserScope.userName
            let name = try UserScope.ownName(job, user: user)
            let own = String(name.dropFirst(user.count + 1))
            let (_, current) = try Jobctl.ask(runtime, ControlRequest(command: .userFile, job: name))
            let original = current.text ?? Self.template(name: name, user: user)
            guard let directory = Self.temporaryDirectory() else {
                print("jobctl: cannot make a directory for the copy: \(String(cString: strerror(errno)))", to: &standardError)
                throw ExitCode(Jobctl.ExitStatus.failure)
            }
            let copy = directory + "/" + own + ".job"
            var keepCopy = false
            defer {
                if !keepCopy {
                    unlink(copy)
                    rmdir(directory)
                }
            }
            guard Self.write(original, to: copy) else {
                print("jobctl: cannot write \(copy): \(String(cString: strerror(errno)))", to: &standardError)
                throw ExitCode(Jobctl.ExitStatus.failure)
            }
            while true {
                let status = Self.runEditor(on: copy)
                guard status == 0, let edited = Self.read(copy) else {
                    print("jobctl: the editor failed (status \(status)); \(name) not changed", to: &standardError)
                    throw ExitCode(Jobctl.ExitStatus.failure)
                }
                if edited == original {
                    print("jobctl: \(name) unchanged")
                    return
                }
                var request = ControlRequest(command: .userSave, job: name)
                request.text = edited
                request.path = copy
                let (client, response) = try Jobctl.exchange(runtime, request)
                if response.type == .error {
                    print(response.message ?? "jobd did not take the job", to: &standardError)
                    if response.code == .invalidJob, isatty(STDIN_FILENO) != 0, Self.askAgain() { continue }
                    keepCopy = true
                    print("jobctl: \(name) not changed; your copy is \(copy)", to: &standardError)
                    throw ExitCode(Jobctl.ExitStatus.failure)
                }
                print(response.message ?? "\(name) saved")
                // Then the reload that takes it, as jobctl reload reports it (only your jobs).
                while let next = try? client.receive(), next.type != .reloadResult {}
                return
            }
        }

        /// What a new job's copy starts as: saved unchanged, it creates nothing.
        static func template(name: String, user: String) -> String {
            """
            # \(name): a job of yours, run as \(user) (jobd.job(5) lists the keys, under "A user's own jobs").
            # Write the job below and save; an unchanged or empty copy creates nothing.
            [Job]
            #OnCalendar=daily
            #ExecStart=/bin/sh -c 'echo hello'

            """
        }

        /// A fresh directory of the caller's for the copy: `$TMPDIR/jobctl-edit-XXXXXX`.
        static func temporaryDirectory() -> String? {
            let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array((base + "/jobctl-edit-XXXXXX").utf8CString)
            return template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
        }

        static func write(_ text: String, to path: String) -> Bool {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
        }

        static func read(_ path: String) -> String? {
            guard let file = fopen(path, "r") else { return nil }
            defer { fclose(file) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                if count == 0 { break }
                bytes += chunk[..<count]
                if bytes.count > 1 << 20 { return nil }
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Runs the editor on `path` through the shell, as git and crontab do (`$EDITOR` may hold
        /// options); its exit status.
        static func runEditor(on path: String, editor chosen: String? = nil) -> Int32 {
            let environment = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
            let editor = chosen ?? environment("VISUAL") ?? environment("EDITOR") ?? (access("/usr/bin/editor", X_OK) == 0 ? "editor" : "vi")
            return ChildProcess.status(of: ["/bin/sh", "-c", editor + " \"$1\"", "sh", path])
        }

        /// Asks on the terminal whether to edit again; yes unless the answer starts with n.
        static func askAgain() -> Bool {
            var standardError = StandardError()
            print("Edit again? [Y/n] ", terminator: "", to: &standardError)
            guard let answer = readLine() else { return false }
            return !answer.lowercased().hasPrefix("n")
        }
    }
}
