import Glibc
import JobdConfig

/// The machine as `Condition…=` and `Assert…=` read it at a run's start, as systemd reads it: the
/// file system, the power supplies in /sys/class/power_supply, the virtualization systemd-detect-virt
/// would name (the container manager's `container=` first, then the hypervisor's), jobd's
/// capability bounding set and its user.
package struct SystemConditionFacts: ConditionFacts {
    package init() {}

    package func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    package func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    package func isNonEmptyFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && status.st_size > 0
    }

    /// systemd's on_ac_power(): on mains when a Mains supply is online, or when there is no Mains
    /// supply at all to say otherwise.
    package var onACPower: Bool {
        let root = "/sys/class/power_supply"
        guard case .success(let names) = FileSystem.directoryEntries(root) else { return true }
        var sawMains = false
        for name in names {
            guard Self.read(root + "/" + name + "/type") == "Mains" else { continue }
            sawMains = true
            if Self.read(root + "/" + name + "/online") == "1" { return true }
        }
        return !sawMains
    }

    package var virtualization: (name: String, kind: String)? {
        // A container says so to PID 1 (systemd's own detection starts there).
        if let container = Self.read("/run/systemd/container"), !container.isEmpty {
            return (container == "systemd-nspawn" ? "systemd-nspawn" : container, "container")
        }
        // The first processor's flags say it: a many-core machine's whole file runs to megabytes.
        if let cpuinfo = Self.read("/proc/cpuinfo", limit: 1 << 24), cpuinfo.split(separator: "\n\n").first?.contains(" hypervisor") == true {
            let vendor = (Self.read("/sys/class/dmi/id/sys_vendor") ?? "").lowercased()
            let name = vendor.contains("qemu") ? "qemu" : vendor.contains("vmware") ? "vmware"
                : vendor.contains("microsoft") ? "microsoft" : vendor.contains("xen") ? "xen" : "kvm"
            return (name, "vm")
        }
        return nil
    }

    package func hasCapability(_ number: Int) -> Bool {
        guard let mask = Self.capabilities("CapBnd") else { return false }
        return number < 64 && mask & (1 << UInt64(number)) != 0
    }

    /// jobd's capability set `field` (`CapBnd`, `CapEff`…) as /proc/self/status gives it.
    static func capabilities(_ field: String) -> UInt64? {
        guard let status = read("/proc/self/status", limit: 16_384),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return UInt64(line.dropFirst(field.count + 1).trimmingWhitespace(), radix: 16)
    }

    package var user: (uid: UInt32, name: String) {
        let uid = getuid()
        let name = getpwuid(uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? String(uid)
        return (uid, name)
    }

    /// A small file's text without its trailing newline.
    private static func read(_ path: String, limit: Int = 4_096) -> String? {
        guard case .success(let text) = FileSystem.readTextFile(path, limit: limit) else { return nil }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        drop { $0 == " " || $0 == "\t" }
    }
}
