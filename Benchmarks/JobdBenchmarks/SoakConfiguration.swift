import Foundation
import Glibc

/// The soak run's two configurations of `jobs` jobs each, in `DIR/jobs-a` and `DIR/jobs-b`, and
/// `DIR/config/jobs.d`, a symbolic link to one of them that a reload switches by renaming.
///
/// Of the jobs, 80% are the same in both (their owners are carried over), 15% differ in their
/// interval (changed: new owners), and 5% have different names (removed and added). One job in 20
/// runs `/bin/true` about every second, among them changed and renamed ones, so that reloads retire
/// owners whose jobs fire and meet runs in flight.
struct SoakConfiguration {
    var directory: String
    var jobs = 1_000

    var configDirectory: String { directory + "/config" }

    func write() throws {
        for variant in ["a", "b"] {
            let folder = directory + "/jobs-" + variant
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for index in 0..<jobs {
                let (name, text) = job(index, variant: variant)
                try text.write(toFile: "\(folder)/\(name).job", atomically: false, encoding: .utf8)
            }
        }
        try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        try use("a")
    }

    /// Points `config/jobs.d` at configuration `variant` in one rename, so jobd never reads a mixture.
    func use(_ variant: String) throws {
        let link = configDirectory + "/jobs.d", staging = configDirectory + "/jobs.d.next"
        unlink(staging)
        guard symlink("../jobs-" + variant, staging) == 0, rename(staging, link) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    private func job(_ index: Int, variant: String) -> (name: String, text: String) {
        let share = index % 100
        let firing = index % 20 == 0 || share == 97
        let name = share >= 95 ? "soak-\(variant)-\(index)" : "soak-\(index)"
        let changed = (80..<95).contains(share) && variant == "b"
        let trigger = firing
            ? "OnUnitActiveSec=\(changed ? "1100ms" : "1s")"
            : "OnStartupSec=1h\nOnUnitActiveSec=\(changed ? "7h" : "6h")"
        return (name, "[Job]\nDescription=soak job \(index)\n\(trigger)\nExecStart=/bin/true\n")
    }
}
