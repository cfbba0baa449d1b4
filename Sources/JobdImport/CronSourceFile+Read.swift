import Glibc
import SystemPackage

extension CronSourceFile {
    /// The kind of cron's file at `path`, by where it is, as cron mode would read it:
    /// `…/etc/crontab`, a file of a directory `cron.d` (the system format) or of `crontabs`
    /// (a user's, named for the user); `nil` for any other path (a job file).
    package static func kind(ofPath path: String) -> Kind? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let name = parts.last.map(String.init) else { return nil }
        let directory = parts.dropLast().last
        if name == "crontab" && directory == "etc" { return .systemCrontab }
        if directory == "cron.d" { return .cronDirectory(name: name) }
        if directory == "crontabs" { return .spool(user: name) }
        return nil
    }

    /// The file at `path` with its status; `nil` when there is none. A user's crontab is never
    /// followed through a link (`O_NOFOLLOW`, as cron opens it): a link is reported as one.
    package static func read(_ path: String, kind: CronSourceFile.Kind, followLink: Bool) -> CronSourceFile? {
        var link = stat()
        guard lstat(path, &link) == 0 else { return nil }
        let isLink = link.st_mode & S_IFMT == S_IFLNK
        var status = CronSourceFile.Status(uid: link.st_uid, permissions: link.st_mode & 0o7777, isRegular: link.st_mode & S_IFMT == S_IFREG,
                                           linkCount: Int(link.st_nlink), symlinkOwner: isLink ? link.st_uid : nil)
        if isLink && !followLink { return CronSourceFile(path: path, kind: kind, status: status, bytes: []) }
        // Not a FIFO's open that waits for a writer: O_NONBLOCK, and only a regular file is read.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followLink ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0 else { return nil }
        status.uid = opened.st_uid
        status.permissions = opened.st_mode & 0o7777
        status.isRegular = opened.st_mode & S_IFMT == S_IFREG
        status.linkCount = Int(opened.st_nlink)
        var bytes: [UInt8] = []
        if status.isRegular {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            // At most 1 MiB, as a job file: a crontab larger than that is not a crontab.
            while bytes.count < 1 << 20 {
                guard let count = try? buffer.withUnsafeMutableBytes({ try FileDescriptor(rawValue: fd).read(into: $0) }),
                      count > 0 else { break }
                bytes += buffer[0..<count]
            }
        }
        return CronSourceFile(path: path, kind: kind, status: status, bytes: bytes)
    }
}
