// jobd-cgexec: the one program that runs as root between jobd and a process of a job's, wherever it
// needs a cgroup or a switch of credentials (issue 26). jobd starts it with no arguments and an
// empty environment, so that nothing a job controls (LD_PRELOAD, GCONV_PATH, ...) reaches a process
// that runs as root, and sends it the exec plan on stdin (Sources/CJobdExec/include/plan.h; written
// by JobdConfig's ExecPlan.swift, read whole before anything is done, refused whole if anything in
// it is wrong). In order, as systemd's exec_child:
//
//   the plan             read from stdin, exactly its own bytes; when stdin is a socket (a run: jobd
//                        passes one end of a socketpair), a failure before the command is told back
//                        on it, and the command's successful execve closes it (close-on-exec), so that
//                        jobd tells a failed start from a command that failed; otherwise it goes to stderr
//   stdin                becomes /dev/null, unless the command reads what follows the plan (mail)
//   cgroups              entered (cgroup.c): the run's cgroup v2 and its twins on the v1 hierarchies
//   fence                a fleet run forks: the parent stays as the run's supervisor, with jobd's
//                        priority and limits, and stops the run when its lease's deadline passes (fence.c)
//   attributes           limits, nice, I/O priority, scheduling, umask, while still root (attributes.c)
//   sandbox              namespaces, mounts, device policy, bounding set (sandbox.c)
//   keyring              a session keyring of the run's own (credentials.c)
//   credentials          supplementary groups, gid, uid (credentials.c)
//   working directory    changed to as the job's user (command.c)
//   signals, sandbox     glibc's 32 and 33 to their default; capabilities, no_new_privs, filters
//   execve               the command with the plan's environment, a name searched in its PATH
//
// A plan in the read mode switches credentials and writes, for each file (EnvironmentFile= of a
// User= job), a line "ERRNO MODE SIZE" and then SIZE bytes to stdout; ERRNO is EFBIG for a file over
// the plan's limit, and a MODE other than a regular file's comes with no bytes.
//
// Exit statuses are systemd's for the same failures (include/exit.h). posix_spawn has no cgroup or
// credential attributes in glibc 2.36, a fork of jobd cannot call setuid safely (see
// JobRunner.swift), and a C program starts in well under a millisecond.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "CJobdExec.h"

int main(void) {
    int socket_type = 0;
    socklen_t length = sizeof socket_type;
    if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_TYPE, &socket_type, &length) == 0)
        exec_fail_report_to(fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3));
    struct exec_plan plan;
    char error[512];
    int status = exec_plan_read(STDIN_FILENO, &plan, error, sizeof error);
    if (status != 0) exec_fail(status, "%s", error);
    const struct exec_credentials *credentials = &plan.credentials;
    if (plan.mode == EXEC_MODE_READ) {
        exec_switch_credentials(credentials);
        return exec_read_files(plan.read_files, plan.read_file_count, plan.read_limit);
    }
    if (!plan.keep_stdin) {
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0) exec_fail(EXIT_EXEC, "cannot open /dev/null: %s", strerror(errno));
        close(null);
    }
    for (size_t i = 0; i < plan.cgroup_count; i++) exec_enter_cgroup(plan.cgroups[i]);
    const char *cgroup = plan.cgroup_count > 0 ? plan.cgroups[0] : NULL;
    // The supervisor forks before the job's attributes: a Nice=, CPUSchedulingPolicy= or LimitCPU=
    // of the job must not slow or end the run's fence.
    if (plan.fence != NULL && fence_supervise(plan.fence, plan.fence_stop, cgroup, exec_fail_report_fd()) != 0)
        exec_fail(EXIT_EXEC, "cannot start the run's fence supervisor: %s", strerror(errno));
    exec_apply_attributes(&plan.attributes);
    int has_account = credentials->has_uid && credentials->has_gid;
    sandbox_apply_as_root(&plan.sandbox, cgroup, credentials->has_uid && credentials->uid != 0, has_account ? credentials : NULL);
    if (plan.keyring) exec_join_session_keyring(credentials);
    exec_switch_credentials(credentials);
    if (plan.directory != NULL) exec_change_directory(plan.directory, plan.directory_optional);
    exec_reset_glibc_signals();
    sandbox_apply_last(&plan.sandbox);
    exec_command(plan.argv, plan.environment);
}
