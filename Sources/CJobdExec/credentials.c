// The credential switcher of every process jobd starts as another user through jobd-cgexec (a run
// with a sandbox, process attributes or a fence, a User= job's EnvironmentFile= reads, its mail), in
// a single-threaded process, its session keyring made here first. A User= run with no other key is
// switched the same way, in the same order, by jobd_spawn's child (Sources/CSpawn/spawn.c).
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit.h"

void exec_switch_credentials(const struct exec_credentials *wanted) {
    if (wanted->has_groups && setgroups(wanted->group_count, wanted->groups) != 0)
        exec_fail(EXIT_GROUP, "cannot set the supplementary groups: %s", strerror(errno));
    if (wanted->has_gid && setresgid(wanted->gid, wanted->gid, wanted->gid) != 0)
        exec_fail(EXIT_GROUP, "cannot switch to gid %u: %s", (unsigned)wanted->gid, strerror(errno));
    if (wanted->has_uid && setresuid(wanted->uid, wanted->uid, wanted->uid) != 0)
        exec_fail(EXIT_USER, "cannot switch to uid %u: %s", (unsigned)wanted->uid, strerror(errno));
}

// A session keyring of the run's own, as systemd gives every system service (KeyringMode=private):
// jobd's own would otherwise be every run's, and a run as User=nobody (or a user's own job) would
// possess it and every key a root job left in it. Made while still root, then given to the job's
// user and group as systemd gives it (systemd makes it with the user's real uid instead; a user
// whose key quota is full makes that fail, and then the service keeps the manager's keyring: here
// the run keeps its own, root's, which it possesses all the same). Where the kernel has no keyrings
// or a filter refuses keyctl() (a container's seccomp filter, which every run inherits too), there is
// no keyring to share, and the run goes on, as systemd's does.
void exec_join_session_keyring(const struct exec_credentials *wanted) {
    long keyring = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
    if (keyring < 0) {
        if (errno == ENOSYS || errno == EPERM || errno == EACCES) return;
        exec_fail(EXIT_KEYRING, "cannot make the run's session keyring: %s", strerror(errno));
    }
    if (wanted->has_uid || wanted->has_gid)
        syscall(SYS_keyctl, KEYCTL_CHOWN, keyring, wanted->has_uid ? wanted->uid : (uid_t)-1, wanted->has_gid ? wanted->gid : (gid_t)-1);
}
