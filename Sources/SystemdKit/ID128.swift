import CSystemd

/// systemd's 128-bit ids (boot, machine, message ids) as Swift strings of 32 lowercase hex digits,
/// the form journal fields such as `_BOOT_ID` and `MESSAGE_ID` use.
package enum ID128 {
    /// The id of the running boot (`_BOOT_ID` in the journal).
    package static func bootID() throws(SystemdError) -> String {
        var id = sd_id128_t()
        try SystemdError.check(sd_id128_get_boot(&id), .idFailed, "sd_id128_get_boot (reads /proc/sys/kernel/random/boot_id)")
        return string(id)
    }

    /// The id of this machine (`_MACHINE_ID`), from `/etc/machine-id`.
    package static func machineID() throws(SystemdError) -> String {
        var id = sd_id128_t()
        try SystemdError.check(sd_id128_get_machine(&id), .idFailed, "sd_id128_get_machine (reads /etc/machine-id)")
        return string(id)
    }

    /// A new random id (a v4 UUID without dashes), for `MESSAGE_ID`s, run ids and invocation ids.
    package static func random() throws(SystemdError) -> String {
        var id = sd_id128_t()
        try SystemdError.check(sd_id128_randomize(&id), .idFailed, "sd_id128_randomize (reads /dev/urandom)")
        return string(id)
    }

    /// Whether `text` is 32 lowercase hex digits.
    package static func isValid(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func string(_ id: sd_id128_t) -> String {
        // SD_ID128_STRING_MAX: 32 digits and a NUL.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 33) { buffer in
            String(cString: sd_id128_to_string(id, buffer.baseAddress!))
        }
    }
}
