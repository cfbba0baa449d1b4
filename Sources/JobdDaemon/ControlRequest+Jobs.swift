import JobdConfig
import JobdControl
import JobdScheduler

extension ControlRequest {
    /// What the client of a request that acts on a job (`run`, `stop`, `disable`, `enable`) is
    /// answered when it names none, or a job jobd does not have (saying why when its file has
    /// errors); `nil` when jobd goes on with it. A `stop` also reaches a job that a reload removed
    /// while its runs are still in flight (`inFlight`).
    func refusal(in generation: Generation, inFlight: (String) -> Bool) -> ControlResponse? {
        switch command {
        case .status, .list, .watchReload, .userFile, .userSave, .logs, .plan, .reloadPreview: return nil
        case .crontabList, .crontabInstall, .crontabRemove: return nil
        case .run, .stop, .disable, .enable: break
        }
        guard let job else { return .error("\(command.rawValue) needs a job") }
        if generation.definition(of: job) != nil || command == .stop && inFlight(job) { return nil }
        let why = generation.broken[job].map { ": its file has errors (\($0.errors[0].description))" } ?? ""
        return .error("no such job: \(job)\(why)")
    }
}
