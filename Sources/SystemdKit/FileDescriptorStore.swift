import CSystemd
import Glibc

/// systemd's file descriptor store of the service (`FileDescriptorStoreMax=`, `FDSTORE=1`): what
/// one jobd leaves there, systemd keeps across the restart and hands to the next at its start, as
/// `LISTEN_FDS`/`LISTEN_FDNAMES` (issue 36: the pipes of the runs handed over).
package enum FileDescriptorStore {
    /// Stores `descriptor` under `name`, never polled (`FDPOLL=0`): a pipe whose writers all ended
    /// still holds what they wrote last, which the next jobd reads. Returns whether systemd took it.
    @discardableResult
    package static func store(_ descriptor: Int32, name: String) -> Bool {
        var fd = descriptor
        return sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=\(name)\nFDPOLL=0", &fd, 1) > 0
    }

    /// Takes the descriptors systemd handed this process at its start, by name (close-on-exec from
    /// now on), and asks systemd to forget them: each is this process's alone afterwards.
    package static func take() -> [String: Int32] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        guard count > 0 else { return [:] }
        defer { free(names) }
        var taken: [String: Int32] = [:]
        for index in 0..<Int(count) {
            let fd = SD_LISTEN_FDS_START + Int32(index)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard let name = names?[index] else { continue }
            defer { free(name) }
            let text = String(cString: name)
            taken[text] = fd
            _ = sd_pid_notify(0, 0, "FDSTOREREMOVE=1\nFDNAME=\(text)")
        }
        return taken
    }
}
