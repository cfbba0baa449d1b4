// jobd-keeper: the parent that outlives jobd, so that a run in flight across `systemctl restart jobd`
// keeps a parent that learns its exit status (issue 36). It is the unit's ExecStart:
//
//   jobd-keeper /usr/sbin/jobd --config-dir /etc/jobd
//
// It makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), forks and execs its arguments (the
// worker, jobd), and, being the unit's main PID at that moment, tells systemd MAINPID=<worker> on
// $NOTIFY_SOCKET, before the worker runs: the worker sends READY=1, WATCHDOG=1 and STOPPING=1 as the
// main PID, so NotifyAccess=main stays (never all: jobs run in the unit's cgroup). Then it reaps: the
// worker, and each run reparented to it when a worker exits and leaves its runs behind (a handover,
// or a crash). For a run, it learns the status with waitid(WNOWAIT), writes it to a file of its own
// in $JOBD_KEEPER_DIR (default /run/jobd/keeper), named after the pid, and only then reaps the
// process: a jobd that finds the pid gone finds the file (JobdHandover's EndedRun reads it; the
// pid's start time in the file tells the run from a later process that got the same pid).
//
// SIGTERM, SIGINT, SIGHUP and SIGQUIT reach the worker, as if it had been started alone. It exits,
// with the worker's status, once the worker is gone and it has no child left.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t worker_pid;

static void forward(int sig) {
    if (worker_pid > 0) kill(worker_pid, sig);
}

// MAINPID=<pid> as sd_notify sends it, on the datagram socket systemd names (a path, or an abstract
// name after '@'). Without $NOTIFY_SOCKET (jobd in the foreground, the tests) there is nobody to tell.
static void notify_main_pid(pid_t pid) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || (path[0] != '/' && path[0] != '@')) return;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    size_t length = strlen(path);
    if (length >= sizeof address.sun_path) return;
    memcpy(address.sun_path, path, length);
    if (path[0] == '@') address.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    char message[32];
    int size = snprintf(message, sizeof message, "MAINPID=%d", (int)pid);
    socklen_t address_length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length);
    if (sendto(fd, message, (size_t)size, MSG_NOSIGNAL, (struct sockaddr *)&address, address_length) < 0)
        fprintf(stderr, "jobd-keeper: cannot tell systemd MAINPID=%d: %s\n", (int)pid, strerror(errno));
    close(fd);
}

// Field 22 of /proc/PID/stat, the process's start time in clock ticks since boot; still there for
// a zombie, which a waitid(WNOWAIT) leaves in place. 0 when it cannot be read.
static unsigned long long start_ticks(pid_t pid) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t size = read(fd, text, sizeof text - 1);
    close(fd);
    if (size <= 0) return 0;
    text[size] = '\0';
    char *field = strrchr(text, ')');  // the command (field 2) may hold spaces and parentheses
    if (field == NULL) return 0;
    for (int number = 2; number < 22 && field != NULL; number++) field = strchr(field + 1, ' ');
    return field == NULL ? 0 : strtoull(field + 1, NULL, 10);
}

// The file of one ended run: written whole under a temporary name and renamed, so that a reader
// never sees half of it.
static void record_end(const char *directory, const siginfo_t *info) {
    const char *code = info->si_code == CLD_EXITED ? "exited" : info->si_code == CLD_DUMPED ? "dumped" : "killed";
    char text[160], path[4096], temporary[4096];
    int size = snprintf(text, sizeof text, "pid=%d\nstart_ticks=%llu\ncode=%s\nstatus=%d\n", (int)info->si_pid,
                        start_ticks(info->si_pid), code, info->si_status);
    snprintf(path, sizeof path, "%s/%d", directory, (int)info->si_pid);
    snprintf(temporary, sizeof temporary, "%s/.%d.new", directory, (int)info->si_pid);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, text, (size_t)size) != size || close(fd) != 0 || rename(temporary, path) != 0)
        fprintf(stderr, "jobd-keeper: cannot record the end of process %d in %s: %s\n", (int)info->si_pid, directory,
                strerror(errno));
}

static pid_t start_worker(char **argv) {
    int gate[2];  // the worker waits until systemd has been told it is the main PID
    if (pipe2(gate, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char byte;
        close(gate[1]);
        while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {}
        execvp(argv[0], argv);
        fprintf(stderr, "jobd-keeper: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(gate[0]);
    if (pid > 0) {
        worker_pid = pid;
        notify_main_pid(pid);
    }
    close(gate[1]);
    return pid;
}

static void handle_signals(void) {
    struct sigaction action = {.sa_handler = forward};  // no SA_RESTART: waitid returns to the loop
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
    // A mask inherited from whoever started the keeper (a test runner blocks nearly every signal)
    // would hold back SIGTERM here and in the worker, which inherits it: start both with none blocked.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: jobd-keeper JOBD [ARGUMENT...]\n");
        return 2;
    }
    const char *directory = getenv("JOBD_KEEPER_DIR");
    if (directory == NULL || directory[0] == '\0') directory = "/run/jobd/keeper";
    if (mkdir(directory, 0700) != 0 && errno != EEXIST)
        fprintf(stderr, "jobd-keeper: cannot create %s: %s\n", directory, strerror(errno));
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fprintf(stderr, "jobd-keeper: cannot become a subreaper: %s\n", strerror(errno));
    handle_signals();
    pid_t worker = start_worker(argv + 1);
    if (worker < 0) {
        fprintf(stderr, "jobd-keeper: cannot start %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    int worker_status = 0;
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR) continue;
            break;  // ECHILD: the worker and every run are gone
        }
        if (info.si_pid == worker) {
            worker_pid = 0;
            worker_status = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
        } else {
            record_end(directory, &info);
        }
        waitpid(info.si_pid, NULL, 0);
    }
    return worker_status;
}
