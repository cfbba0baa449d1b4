// jobd-cgexec's exit statuses, systemd's for the same failures (systemd's exit-status.h), and the one
// way it reports a failure before the command runs. The one table: jobd's Swift imports these
// (ExitStatusName, RunOutcome) instead of repeating the numbers.
#ifndef JOBD_EXEC_EXIT_H
#define JOBD_EXEC_EXIT_H

enum {
    EXIT_USAGE = 2,  // a plan jobd-cgexec cannot read: a bug of jobd's, or another program's plan
    EXIT_CHDIR = 200,
    EXIT_NICE = 201,
    EXIT_EXEC = 203,
    EXIT_LIMITS = 205,
    EXIT_OOM_ADJUST = 206,
    EXIT_IOPRIO = 211,
    EXIT_SETSCHEDULER = 214,
    EXIT_GROUP = 216,
    EXIT_USER = 217,
    EXIT_CAPABILITIES = 218,
    EXIT_CGROUP = 219,
    EXIT_NETWORK = 225,
    EXIT_NAMESPACE = 226,
    EXIT_NO_NEW_PRIVILEGES = 227,
    EXIT_SECCOMP = 228,
    EXIT_KEYRING = 237,
};

// Where exec_fail reports from now on: jobd's status socket (the trampoline's stdin when it is one),
// or -1 for stderr.
void exec_fail_report_to(int status_fd);
// The status socket, or -1 (the fence's supervisor closes its copy).
int exec_fail_report_fd(void);

// Reports `format` (to the status socket, or stderr as "jobd-cgexec: ..."), removes what a failed
// sandbox setup left in /run, and exits with `code`.
void exec_fail(int code, const char *format, ...) __attribute__((noreturn, format(printf, 2, 3)));

#endif
