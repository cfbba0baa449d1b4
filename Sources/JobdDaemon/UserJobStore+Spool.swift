import Glibc
import JobdConfig
package import JobdPolicy
package import Logging

package extension UserJobStore {
    /// Users' jobs that a jobd before the spool kept in its state directory (`STATE/users`) move
    /// to the spool at start, once: there a purge of the package keeps them. When the spool is
    /// there already, or the move fails (another file system), jobd says what to do and reads the
    /// spool alone.
    static func move(from old: String, to spool: String, logger: Logger) {
        var status = stat()
        guard lstat(old, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return }
        if lstat(spool, &status) == 0 {
            logger.error("\(old): users' jobs of an earlier jobd are not read, since \(spool) is there too: move each user's directory into \(spool) by hand")
        } else if rename(old, spool) == 0 {
            logger.notice("users' jobs moved from \(old) to \(spool), which a purge of the package keeps")
        } else {
            logger.error("cannot move users' jobs from \(old) to \(spool): \(String(cString: strerror(errno))); move the directory there by hand")
        }
    }
}
