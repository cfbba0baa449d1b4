#ifndef JOBD_RUN_SPAWN_H
#define JOBD_RUN_SPAWN_H

// How jobd starts a run's process when it needs no trampoline (issue 39): what posix_spawn did,
// plus the one step posix_spawn cannot take, a resource limit set in the child before execve
// (the runs' RLIMIT_NOFILE, lower than the one jobd raised for itself).

struct jobd_run_spawn {
    const char *path;           // what execve runs (already looked up in PATH)
    char *const *argv;          // NULL-terminated
    char *const *envp;          // NULL-terminated
    const char *directory;      // chdir before execve
    int input, output, error;   // become 0, 1 and 2
    int set_nofile;             // whether to set RLIMIT_NOFILE to nofile_soft:nofile_hard
    unsigned long long nofile_soft, nofile_hard;  // ~0ULL is infinity
};

// Starts the process: in a session of its own, every signal at its default and none blocked,
// descriptors from 3 up closed, in `directory`, with RLIMIT_NOFILE when asked. Waits until it has
// executed (CLONE_VFORK, as posix_spawn). Returns its pid, or -errno of the step that failed (the
// child is then reaped) and `*step` names that step.
int jobd_run_spawn(const struct jobd_run_spawn *spawn, const char **step);

#endif
