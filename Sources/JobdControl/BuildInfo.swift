import CBuildInfo

/// What `jobd --version` and `jobctl --version` say, and `daemon.start` logs: the release and the
/// commit of the build.
///
/// The commit comes from `Sources/CBuildInfo/build-info.h`, which scripts/version writes from
/// `git describe` (scripts/setup runs it before every build of scripts/install, scripts/test and
/// scripts/run) and which git does not track; without it, "unknown". SwiftPM does not notice a
/// changed header, so scripts/version also touches this file, which makes it compile again.
package enum BuildInfo {
    package static let release = "0.1.0"
    /// `git describe --always --dirty --abbrev=12` of the build, or `unknown`.
    package static let commit = String(cString: jobd_build_commit())
    /// `0.1.0 (git 4736623a1b2c)`.
    package static let version = "\(release) (git \(commit))"
    /// jobd's licence, as `--version` names it (the LICENSE file; debian/copyright in DEP-5 form).
    package static let license = "Apache-2.0"
    /// What `--version` prints: the version, then the licence on a line of its own.
    package static let versionText = "\(version)\nLicense: Apache License 2.0 (\(license))"
}
