import ArgumentParser
import JobdControl
import JobdImport

extension ImportFiles {
    /// `jobctl --user import cron`: each job sent to jobd as one of the caller's own (`user-save`,
    /// as `jobctl --user edit` sends it), which jobd checks and keeps; a job of that name that
    /// exists is left alone unless `force`. Returns how many jobd took and whether any was not.
    static func send(_ jobs: [JobFile], runtime: RuntimeOptions, force: Bool) throws -> (written: Int, failed: Bool) {
        var standardError = StandardError()
        let user = UserScope.userName
        var written = 0, failed = false
        for job in jobs {
            let name = user + ":" + job.name
            let problems = job.problems(path: job.name + ".job")
            if !problems.isEmpty {
                for problem in problems { print("\(name): not taken: \(problem)", to: &standardError) }
                failed = true
                continue
            }
            if !force, try Jobctl.ask(runtime, ControlRequest(command: .userFile, job: name)).1.text != nil {
                print("\(name): error: you have a job of that name; it was not replaced (--force replaces it)", to: &standardError)
                failed = true
                continue
            }
            var request = ControlRequest(command: .userSave, job: name)
            request.text = job.text
            request.path = job.name + ".job"
            let (client, response) = try Jobctl.exchange(runtime, request)
            guard response.type != .error else {
                print(response.message ?? "\(name): jobd did not take it", to: &standardError)
                failed = true
                continue
            }
            // The reload that takes it, before the next.
            while let next = try? client.receive(), next.type != .reloadResult {}
            print(response.message ?? "\(name) saved")
            written += 1
        }
        return (written, failed)
    }
}
