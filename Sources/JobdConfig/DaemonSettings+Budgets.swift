import JobdUnitFile

extension DaemonSettings {
    /// `StopTimeoutMaxSec=`: a finite, positive time span, the default when empty; `nil` after an error.
    static func stopTimeoutMax(_ value: String, path: String, line: Int, errors: inout [ConfigError]) -> TimeSpan? {
        let hint = "write a time span below jobd.service's TimeoutStopSec=, such as 20s (the default)"
        do {
            let span = value.isEmpty ? defaultStopTimeoutMax : try TimeSpan.parse(value)
            if !span.isInfinite, span != .zero { return span }
            errors.append(ConfigError(file: path, line: line, message: "StopTimeoutMaxSec=: '\(value)' is not a finite time span", hint: hint))
        } catch {
            errors.append(ConfigError(file: path, line: line, message: "StopTimeoutMaxSec=: \(error)", hint: hint))
        }
        return nil
    }

    /// `UserConnectionsMax=`: a positive number, the default when empty; `nil` after an error.
    static func userConnectionsMax(_ value: String, path: String, line: Int, errors: inout [ConfigError]) -> Int? {
        if value.isEmpty { return defaultUserConnectionsMax }
        if let limit = Int(value), limit > 0 { return limit }
        errors.append(ConfigError(file: path, line: line, message: "UserConnectionsMax=: '\(value)' is not a positive number",
                                  hint: "write a number of connections such as \(defaultUserConnectionsMax) (the default)"))
        return nil
    }

    /// `UserLogRateLimitBurst=`: a number of lines, `infinity` (`.some(nil)`), the default when empty;
    /// `nil` after an error.
    static func userLogRateLimitBurst(_ value: String, path: String, line: Int, errors: inout [ConfigError]) -> Int?? {
        if value.isEmpty { return .some(defaultUserLogRateLimitBurst) }
        if value == "infinity" { return .some(nil) }
        if let limit = Int(value), limit >= 0 { return .some(limit) }
        errors.append(ConfigError(file: path, line: line, message: "UserLogRateLimitBurst=: '\(value)' is not a number of lines",
                                  hint: "write a number such as \(defaultUserLogRateLimitBurst) (the default), or infinity"))
        return nil
    }

    /// `UserLogRateLimitIntervalSec=`: a time span above 0, the default when empty; `nil` after an error.
    static func userLogRateLimitInterval(_ value: String, path: String, line: Int, errors: inout [ConfigError]) -> TimeSpan? {
        if value.isEmpty { return defaultUserLogRateLimitInterval }
        if let span = try? TimeSpan.parse(value), span > .zero { return span }
        errors.append(ConfigError(file: path, line: line, message: "UserLogRateLimitIntervalSec=: '\(value)' is not a time span above 0",
                                  hint: "write a time span such as 30s (the default)"))
        return nil
    }
}
