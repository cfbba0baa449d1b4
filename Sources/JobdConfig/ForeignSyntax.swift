/// Hints for what was pasted from elsewhere into a job file: a systemd unit's sections and keys,
/// or a crontab line, pointing to the `jobctl import` command that converts it.
enum ForeignSyntax {
    /// systemd's timer keys that jobd names differently.
    static let systemdKeys: [String: String] = [
        "OnBootSec": "did you mean 'OnStartupSec='? jobd counts it from its own start, systemd's OnBootSec= from the boot",
        // systemd's older resource keys, which it converts to the newer ones jobd takes.
        "MemoryLimit": "jobd does not support MemoryLimit=, which systemd deprecates: write MemoryMax=, which systemd 252 applies the same way",
        "CPUShares": "jobd does not support CPUShares=, which systemd deprecates: write CPUWeight= (the shares × 100 / 1024; 1024 is 100)",
        "BlockIOWeight": "jobd does not support BlockIOWeight=, which systemd deprecates: write IOWeight= (the weight / 5; 500 is 100)",
        "CPUQuotaPeriodSec": "jobd does not support CPUQuotaPeriodSec=: CPUQuota= counts over systemd's default period of 100 ms",
    ]

    /// The hint for an unknown key that is systemd's, or for a crontab line with a `=` in it.
    static func hint(forKey key: String, value: String) -> String? {
        if let hint = systemdKeys[key] { return hint }
        return looksLikeCronLine(Substring(key + "=" + value)) ? cronHint : nil
    }

    /// The hint for a section of a systemd unit, `nil` for other sections.
    static func sectionHint(_ section: String) -> String? {
        switch section {
        case "Timer", "Service", "Unit", "Install":
            "this is a systemd timer unit: try 'jobctl import timer UNIT.timer' to convert it with its service"
        default: nil
        }
    }

    static let cronHint = "this looks like a crontab line: try 'jobctl import cron FILE' to convert it"

    /// Whether `text` starts like a crontab line: five schedule fields (or an `@` name) and a command.
    static func looksLikeCronLine(_ text: Substring) -> Bool {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if let first = words.first, first.hasPrefix("@") {
            return words.count >= 2 && ["@reboot", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]
                .contains(String(first))
        }
        return words.count >= 6 && words.prefix(5).allSatisfy { field in
            field.allSatisfy { $0.isASCII && ($0.isNumber || $0.isLetter || "*,-/".contains($0)) }
                && field.contains { $0.isNumber || $0 == "*" || $0.isLetter }
        } && words.prefix(5).contains { word in word.contains { $0.isNumber || $0 == "*" } }
    }
}
