import JobdScheduler

/// What a jobd that hands a run over (issue 36) adds to its record beyond the process, for the
/// next one: the run's cgroup (so that it can stop the run and read what it used), and what it
/// had read of a line on each pipe without the line's end (so that no line is cut in two or lost).
package struct HandedOverRun: Sendable, Hashable {
    /// The cgroup's directory, its path as `/proc/PID/cgroup` names it, and its v1 twins by controller.
    package var cgroupDirectory: String?
    package var cgroupPath: String?
    package var cgroupLegacy: [String: String]
    package var pendingOutput: [UInt8]
    package var pendingError: [UInt8]

    package init(
        cgroupDirectory: String? = nil, cgroupPath: String? = nil, cgroupLegacy: [String: String] = [:],
        pendingOutput: [UInt8] = [], pendingError: [UInt8] = []
    ) {
        self.cgroupDirectory = cgroupDirectory
        self.cgroupPath = cgroupPath
        self.cgroupLegacy = cgroupLegacy
        self.pendingOutput = pendingOutput
        self.pendingError = pendingError
    }

    /// The name each of the run's pipes has in systemd's file descriptor store.
    package static func outputName(_ invocationID: String) -> String { "o-" + invocationID }
    package static func errorName(_ invocationID: String) -> String { "e-" + invocationID }

    var savedLines: [String] {
        var lines: [String] = []
        if let cgroupDirectory, let cgroupPath {
            lines += [SavedFields.line("cgroup_directory", cgroupDirectory), SavedFields.line("cgroup_path", cgroupPath)]
        }
        for (controller, directory) in cgroupLegacy.sorted(by: { $0.key < $1.key }) {
            lines.append(SavedFields.line("cgroup_legacy_" + controller, directory))
        }
        if !pendingOutput.isEmpty { lines.append(SavedFields.line("pending_output", Self.hex(pendingOutput))) }
        if !pendingError.isEmpty { lines.append(SavedFields.line("pending_error", Self.hex(pendingError))) }
        return lines
    }

    init(_ values: [Substring: Substring]) {
        var legacy: [String: String] = [:]
        for (key, value) in values where key.hasPrefix("cgroup_legacy_") {
            legacy[String(key.dropFirst("cgroup_legacy_".count))] = String(value)
        }
        self.init(cgroupDirectory: values["cgroup_directory"].map(String.init), cgroupPath: values["cgroup_path"].map(String.init),
                  cgroupLegacy: legacy, pendingOutput: values["pending_output"].map(Self.bytes) ?? [],
                  pendingError: values["pending_error"].map(Self.bytes) ?? [])
    }

    /// Bytes as two lower-case hexadecimal digits each: a line's start may hold any byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of ``hex(_:)``'s text; what is not a digit pair is left out.
    static func bytes(_ text: Substring) -> [UInt8] {
        let digits = Array(text.utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < digits.count {
            if let high = Self.value(digits[index]), let low = Self.value(digits[index + 1]) { bytes.append(high << 4 | low) }
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
