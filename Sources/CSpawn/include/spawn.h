// A run's process in one step (issue 39): clone3 with CLONE_VM | CLONE_VFORK, as glibc's
// posix_spawn clones, started straight in the run's cgroup v2 (CLONE_INTO_CGROUP, Linux 5.7), and
// set up in the child before its execve with what posix_spawn has no attribute for: its v1 cgroup
// twins, a session keyring of its own, RLIMIT_NOFILE, and a User= run's credentials. Types of its own, not <sys/resource.h>'s, so
// that Swift's Glibc module keeps those (see shim.h).
#ifndef JOBD_CSPAWN_SPAWN_H
#define JOBD_CSPAWN_SPAWN_H

// The step of the child (or the parent) that failed.
enum {
    JOBD_SPAWN_OK = 0,
    JOBD_SPAWN_CLONE = 1,        // clone3 (or clone) itself: nothing was started
    JOBD_SPAWN_SESSION = 2,      // setsid
    JOBD_SPAWN_DESCRIPTORS = 3,  // stdin, stdout, stderr
    JOBD_SPAWN_DIRECTORY = 4,    // chdir
    JOBD_SPAWN_CGROUP = 5,       // a v1 twin's cgroup.procs
    JOBD_SPAWN_KEYRING = 6,      // keyctl(KEYCTL_JOIN_SESSION_KEYRING)
    JOBD_SPAWN_LIMIT = 7,        // setrlimit(RLIMIT_NOFILE)
    JOBD_SPAWN_CLOSE = 8,        // every descriptor from 3 up
    JOBD_SPAWN_EXEC = 9,         // execve
    JOBD_SPAWN_PIDFD = 10,       // pidfd_open, where clone3 gave none: the child was killed
    JOBD_SPAWN_GROUPS = 11,      // setgroups, setresgid
    JOBD_SPAWN_USER = 12,        // setresuid
    JOBD_SPAWN_USER_DIRECTORY = 13,  // chdir as the user
};

struct jobd_spawn_plan {
    // What the child executes: a path (already looked up), its argv and environment (NULL-ended).
    const char *path;
    char *const *argv;
    char *const *environment;
    const char *directory;  // NULL: jobd's own
    int input, output, error;  // become its 0, 1 and 2
    int cgroup;  // a cgroup v2 directory (O_PATH) it starts in, or -1
    const char *const *legacy_cgroups;  // v1 cgroup directories it enters (cgroup.procs), NULL-ended; or NULL
    int keyring;  // join a new session keyring, as jobd-cgexec does (none to join: goes on)
    int set_nofile;
    unsigned long long nofile_soft, nofile_hard;  // ~0: infinity
    // The credentials it switches to last, as jobd-cgexec's exec_switch_credentials (the keyring,
    // if any, given to them first), then the directory it enters as the user: what a User= run
    // with no other key needs, without jobd-cgexec's exec.
    int set_groups, set_gid, set_uid;
    unsigned long group_count;
    const unsigned *groups;
    unsigned gid, uid;
    const char *user_directory;  // NULL: none
    int user_directory_optional;  // a missing one leaves it in /

    // What came of it.
    int pid, pidfd;
    int failed_step;  // JOBD_SPAWN_*
    int error_number;
};

// Starts the child: 0 with pid and pidfd (close-on-exec) set, or -1 with failed_step and
// error_number, and then nothing is left running. A plan with a cgroup needs clone3: where the
// kernel has none, or no CLONE_INTO_CGROUP, it fails at JOBD_SPAWN_CLONE (ENOSYS, E2BIG, EINVAL).
int jobd_spawn(struct jobd_spawn_plan *plan);

#endif
