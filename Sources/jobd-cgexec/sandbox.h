// The sandbox of a run (issue 27): jobd-cgexec's options for systemd's sandboxing keys, and the two
// steps that apply them. See sandbox.c and docs/internals.md, "Sandboxing".
#ifndef JOBD_CGEXEC_SANDBOX_H
#define JOBD_CGEXEC_SANDBOX_H

#include <sys/types.h>

enum {
    EXIT_CAPABILITIES = 218, EXIT_NETWORK = 225, EXIT_NAMESPACE = 226, EXIT_NO_NEW_PRIVILEGES = 227, EXIT_SECCOMP = 228,
};

// Takes OPTION with VALUE (NULL for a flag) when it is a sandbox option: returns 1 when it took
// VALUE too, 0 when it took only the flag, -1 when it is not one of them.
int sandbox_option(const char *option, const char *value);
// The credentials the run switches to, with which --user-paths looks the mount entries up.
struct path_credentials {
    uid_t uid;
    gid_t gid;
    size_t group_count;
    const gid_t *groups;
};

// As root, before the credentials switch: namespaces, mounts, the device policy on the run's cgroup
// v2 (its directory, or NULL), the capability bounding set. `switches_user`: a uid switch follows;
// `as`: the run's credentials (NULL when it keeps root's).
void sandbox_apply_as_root(const char *cgroup, int switches_user, const struct path_credentials *as);
// After the switch, just before execve: ambient capabilities, no_new_privs, seccomp filters.
void sandbox_apply_last(void);

// Removes the directories a failed setup left in /run (fail() calls it).
void sandbox_abandon(void);

// Reports `format` (to jobd's status socket, or stderr) and exits with `code` (main.c).
void fail(int code, const char *format, ...) __attribute__((noreturn, format(printf, 2, 3)));

#endif
