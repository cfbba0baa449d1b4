import CSystemd
import Glibc

/// What jobd asks systemd itself, over the manager's own socket (`/run/systemd/private`, root's
/// only, as `systemctl` does without a D-Bus daemon): whether the SIGTERM it got stops the service or
/// restarts it (issue 36).
package enum ServiceManagerBus {
    /// The type of the job systemd runs or has queued for the unit of this process
    /// (`org.freedesktop.systemd1.Job.JobType`: `stop`, `restart`, `try-restart`…), or `nil` when it
    /// has none or cannot be asked (no systemd, not root, a timeout of `timeoutUSec`).
    package static func jobTypeOfOwnUnit(timeoutUSec: UInt64 = 2_000_000) -> String? {
        var created: OpaquePointer?
        guard sd_bus_new(&created) >= 0, let bus = created else { return nil }
        defer { sd_bus_flush_close_unref(bus) }
        guard sd_bus_set_address(bus, "unix:path=/run/systemd/private") >= 0, sd_bus_start(bus) >= 0,
              let unit = unitPath(bus, timeoutUSec: timeoutUSec) else { return nil }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        // The reply comes with its variant entered: a (uo), the job's number (0: none) and path.
        guard sd_bus_get_property(bus, manager, unit, "org.freedesktop.systemd1.Unit", "Job", &error, &reply, "(uo)") >= 0,
              let reply else { return nil }
        defer { sd_bus_message_unref(reply) }
        var id: UInt32 = 0
        var path: UnsafePointer<CChar>?
        guard sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "r")), "uo") >= 0,
              sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &id) >= 0,
              sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &path) >= 0, id != 0, let path else { return nil }
        var type: UnsafeMutablePointer<CChar>?
        guard sd_bus_get_property_string(bus, manager, path, "org.freedesktop.systemd1.Job", "JobType", &error, &type) >= 0,
              let type else { return nil }
        defer { free(type) }
        return String(cString: type)
    }

    private static let manager = "org.freedesktop.systemd1"

    /// `GetUnitByPID` of this process: the object path of its unit.
    private static func unitPath(_ bus: OpaquePointer, timeoutUSec: UInt64) -> String? {
        var made: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &made, manager, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                             "GetUnitByPID") >= 0, let call = made else { return nil }
        defer { sd_bus_message_unref(call) }
        var pid = UInt32(getpid())
        guard sd_bus_message_append_basic(call, CChar(UInt8(ascii: "u")), &pid) >= 0 else { return nil }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        guard sd_bus_call(bus, call, timeoutUSec, &error, &reply) >= 0, let reply else { return nil }
        defer { sd_bus_message_unref(reply) }
        var path: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &path) >= 0, let path else { return nil }
        return String(cString: path)
    }
}
