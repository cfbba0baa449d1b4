// jobd-keeper: the unit's main process, so that a run in flight across `systemctl restart jobd`
// keeps a parent that learns its exit status (issue 36). It is the unit's ExecStart:
//
//   jobd-keeper /usr/sbin/jobd --config-dir /etc/jobd
//
// Three processes:
// - The keeper (this process, the unit's main PID, systemd's child): it passes systemd's signals on
//   to jobd, relays jobd's sd_notify messages to systemd (READY=1, WATCHDOG=1, STATUS=, FDSTORE=1
//   with their descriptors) as its own, and exits with jobd's status once jobd has exited. So
//   systemd sees its main process end when jobd ends, and NotifyAccess=main stays (never all: jobs
//   run in the unit's cgroup). (A MAINPID= naming jobd would not do: systemd 252 does not wait for
//   a main process that is not its child, and sends it SIGKILL right after SIGTERM.)
// - The holder, its child, a child subreaper (PR_SET_CHILD_SUBREAPER): the parent of jobd, and of
//   every run a jobd leaves behind (a handover, or a crash). For a run, it learns the status with
//   waitid(WNOWAIT), writes it to a file of its own in $JOBD_KEEPER_DIR (default
//   $RUNTIME_DIRECTORY/keeper), named after the pid, and only then reaps the process: the next jobd
//   that finds the pid gone finds the file. It outlives the keeper while it has runs, and exits
//   once it has no child left.
// - jobd, the holder's child, told where to send its notifications (NOTIFY_SOCKET, the keeper's
//   socket), which descriptors and watchdog are its own (LISTEN_PID, WATCHDOG_PID), and that a
//   keeper holds its runs (JOBD_KEEPER: the holder's pid; JOBD_KEEPER_DIR).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#define MAX_RELAYED_FDS 64

static int signal_pipe[2] = {-1, -1};

static void note_signal(int sig) {
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    (void)!write(signal_pipe[1], &byte, 1);
    errno = saved;
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
    char text[160], path[4200], temporary[4200];
    int size = snprintf(text, sizeof text, "pid=%d\nstart_ticks=%llu\ncode=%s\nstatus=%d\n", (int)info->si_pid,
                        start_ticks(info->si_pid), code, info->si_status);
    snprintf(path, sizeof path, "%s/%d", directory, (int)info->si_pid);
    snprintf(temporary, sizeof temporary, "%s/.%d.new", directory, (int)info->si_pid);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, text, (size_t)size) != size || close(fd) != 0 || rename(temporary, path) != 0)
        fprintf(stderr, "jobd-keeper: cannot record the end of process %d in %s: %s\n", (int)info->si_pid, directory,
                strerror(errno));
}

// The holder: starts jobd, tells the keeper its pid ("W<pid>\n") and, when it ends, its status as
// the keeper should exit with ("X<status>\n"); records and reaps every other child until none is left.
// The unit's cgroup directory on the unified hierarchy (`/sys/fs/cgroup` + the path in
// /proc/self/cgroup), or "" where there is none.
static char unit_cgroup[4096];

static void find_unit_cgroup(void) {
    char line[4096], path[2048] = "", mount[2048] = "";
    FILE *file = fopen("/proc/self/cgroup", "re");
    while (file != NULL && fgets(line, sizeof line, file) != NULL)
        if (strncmp(line, "0::", 3) == 0) sscanf(line + 3, "%2047s", path);
    if (file != NULL) fclose(file);
    file = fopen("/proc/self/mountinfo", "re");
    while (file != NULL && fgets(line, sizeof line, file) != NULL) {
        char point[2048];
        const char *type = strstr(line, " - cgroup2 ");
        if (type != NULL && sscanf(line, "%*s %*s %*s %*s %2047s", point) == 1) snprintf(mount, sizeof mount, "%s", point);
    }
    if (file != NULL) fclose(file);
    if (path[0] == '/' && strcmp(path, "/") != 0 && mount[0] == '/') snprintf(unit_cgroup, sizeof unit_cgroup, "%s%s", mount, path);
}

// Moves this process into `directory` (writing "0" to its cgroup.procs moves the writer).
static int enter_cgroup(const char *directory) {
    char procs[4200];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", directory);
    int fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int written = (int)write(fd, "0", 1);
    close(fd);
    return written == 1 ? 0 : -1;
}

// Disables, deepest first, every controller enabled below the unit's cgroup. systemd 252 cannot
// start the next main process in a cgroup whose controllers are enabled for its children while
// processes are left in them (the runs a jobd handed over, or left behind when it was killed):
// its start would fail with 219/CGROUP. The next jobd enables them again and sets each run's
// limits anew (issue 36).
static void release_controllers(const char *directory, int depth) {
    DIR *entries = depth < 8 ? opendir(directory) : NULL;
    struct dirent *entry;
    while (entries != NULL && (entry = readdir(entries)) != NULL) {
        if (entry->d_type != DT_DIR || entry->d_name[0] == '.') continue;
        char child[4200];
        snprintf(child, sizeof child, "%s/%s", directory, entry->d_name);
        release_controllers(child, depth + 1);
    }
    if (entries != NULL) closedir(entries);
    char path[4200], enabled[512] = "";
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", directory);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t size = read(fd, enabled, sizeof enabled - 1);
    close(fd);
    if (size <= 0) return;
    enabled[size] = '\0';
    for (char *save = NULL, *name = strtok_r(enabled, " \n", &save); name != NULL; name = strtok_r(NULL, " \n", &save)) {
        char change[64];
        int length = snprintf(change, sizeof change, "-%s", name);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) return;
        if (write(fd, change, (size_t)length) != length)
            fprintf(stderr, "jobd-keeper: cannot disable the %s controller in %s: %s\n", name, directory, strerror(errno));
        close(fd);
    }
}

static volatile sig_atomic_t held_worker;

// The keeper died while jobd runs: it was killed (systemd's SIGKILL after a watchdog's abort, or
// `systemctl kill --kill-who=main`), for the keeper never exits before jobd does. jobd goes too,
// as the unit's main process would have; its runs stay, for the next jobd.
static void keeper_died(int sig) {
    (void)sig;
    if (held_worker > 0) kill(held_worker, SIGKILL);
}

static int hold(char **argv, const char *directory, int report, const char *notify_socket, pid_t keeper) {
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fprintf(stderr, "jobd-keeper: cannot become a subreaper: %s\n", strerror(errno));
    char holder[16];
    snprintf(holder, sizeof holder, "%d", (int)getpid());
    pid_t worker = fork();
    if (worker == 0) {
        char self[16];
        snprintf(self, sizeof self, "%d", (int)getpid());
        // sd_listen_fds and sd_watchdog_enabled heed LISTEN_FDS and WATCHDOG_USEC only in the process
        // LISTEN_PID and WATCHDOG_PID name, which systemd set to the keeper.
        if (getenv("LISTEN_FDS") != NULL) setenv("LISTEN_PID", self, 1);
        if (getenv("WATCHDOG_USEC") != NULL) setenv("WATCHDOG_PID", self, 1);
        if (notify_socket != NULL) setenv("NOTIFY_SOCKET", notify_socket, 1);
        setenv("JOBD_KEEPER", holder, 1);
        setenv("JOBD_KEEPER_DIR", directory, 1);
        // jobd starts alone in the unit's cgroup, as its main process would, and takes it over.
        if (unit_cgroup[0] != '\0') enter_cgroup(unit_cgroup);
        execvp(argv[0], argv);
        fprintf(stderr, "jobd-keeper: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (worker < 0) {
        fprintf(stderr, "jobd-keeper: cannot start %s: %s\n", argv[0], strerror(errno));
        dprintf(report, "X1\n");
        return 1;
    }
    // The store's descriptors are jobd's alone: the holder outlives it and must not keep them open.
    const char *count = getenv("LISTEN_FDS");
    for (int fd = 3, last = 3 + (count ? atoi(count) : 0); fd < last; fd++)
        if (fd != report) close(fd);
    held_worker = worker;
    signal(SIGUSR1, keeper_died);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    if (getppid() != keeper) keeper_died(SIGUSR1);  // it died before the request
    dprintf(report, "W%d\n", (int)worker);
    // systemd signals the keeper alone (KillMode=process); a signal sent to the whole unit must not
    // end the parent of the runs a jobd handed over.
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    // A keeper that was killed reads nothing more: the holder goes on without it.
    signal(SIGPIPE, SIG_IGN);
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
            if (errno == EINTR) continue;
            break;  // ECHILD: jobd and every run are gone
        }
        if (info.si_pid == worker) {
            held_worker = 0;
            if (unit_cgroup[0] != '\0') release_controllers(unit_cgroup, 0);
            dprintf(report, "X%d\n", info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status);
            close(report);
            report = -1;
        } else {
            record_end(directory, &info);
        }
        waitpid(info.si_pid, NULL, 0);
    }
    return 0;
}

// The socket jobd notifies through: an abstract address the kernel picks (autobind), whose
// senders' credentials come with each message, so that only jobd's are relayed.
static int open_relay(char *name, size_t size) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int on = 1;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    socklen_t length = sizeof(sa_family_t);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&address, length) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0 || length <= offsetof(struct sockaddr_un, sun_path) + 1) {
        close(fd);
        return -1;
    }
    size_t name_length = length - offsetof(struct sockaddr_un, sun_path) - 1;  // after the leading NUL
    snprintf(name, size, "@%.*s", (int)name_length, address.sun_path + 1);
    return fd;
}

// systemd's notify socket, from NOTIFY_SOCKET (a path, or an abstract name after '@').
static int systemd_address(struct sockaddr_un *address, socklen_t *length) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || (path[0] != '/' && path[0] != '@')) return -1;
    size_t size = strlen(path);
    if (size >= sizeof address->sun_path) return -1;
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path, path, size);
    if (path[0] == '@') address->sun_path[0] = '\0';
    *length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + size + (path[0] == '@' ? 0 : 1));
    return 0;
}

// Relays every message waiting on the relay socket that jobd sent: its text and descriptors go to
// systemd as the keeper's own (systemd takes them from its main process only).
static void relay(int relay_fd, int out_fd, const struct sockaddr_un *to, socklen_t to_length, pid_t worker) {
    for (;;) {
        char text[4096];
        union {
            char buffer[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * MAX_RELAYED_FDS)];
            struct cmsghdr align;
        } control;
        struct iovec vector = {.iov_base = text, .iov_len = sizeof text};
        struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer,
                                 .msg_controllen = sizeof control.buffer};
        ssize_t size = recvmsg(relay_fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (size < 0) {
            if (errno == EINTR) continue;
            return;  // EAGAIN: nothing more waits
        }
        int fds[MAX_RELAYED_FDS], fd_count = 0;
        pid_t sender = 0;
        for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
            if (header->cmsg_level != SOL_SOCKET) continue;
            if (header->cmsg_type == SCM_CREDENTIALS) {
                struct ucred credentials;
                memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
                sender = credentials.pid;
            } else if (header->cmsg_type == SCM_RIGHTS) {
                int received = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (int index = 0; index < received && fd_count < MAX_RELAYED_FDS; index++)
                    memcpy(&fds[fd_count++], CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            }
        }
        if (sender == worker && worker > 0 && out_fd >= 0) {
            union {
                char buffer[CMSG_SPACE(sizeof(int) * MAX_RELAYED_FDS)];
                struct cmsghdr align;
            } out_control;
            struct iovec out_vector = {.iov_base = text, .iov_len = (size_t)size};
            struct msghdr out = {.msg_name = (void *)to, .msg_namelen = to_length, .msg_iov = &out_vector, .msg_iovlen = 1};
            if (fd_count > 0) {
                out.msg_control = out_control.buffer;
                out.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)fd_count);
                struct cmsghdr *header = CMSG_FIRSTHDR(&out);
                header->cmsg_level = SOL_SOCKET;
                header->cmsg_type = SCM_RIGHTS;
                header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)fd_count);
                memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)fd_count);
            }
            // Blocking: systemd reads its socket, and a message lost here could be a descriptor.
            while (sendmsg(out_fd, &out, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
        }
        for (int index = 0; index < fd_count; index++) close(fds[index]);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: jobd-keeper JOBD [ARGUMENT...]\n");
        return 2;
    }
    char directory[4096];
    const char *given = getenv("JOBD_KEEPER_DIR");
    const char *runtime = getenv("RUNTIME_DIRECTORY");
    if (given != NULL && given[0] != '\0')
        snprintf(directory, sizeof directory, "%s", given);
    else if (runtime != NULL && runtime[0] == '/' && strchr(runtime, ':') == NULL)
        snprintf(directory, sizeof directory, "%s/keeper", runtime);
    else
        snprintf(directory, sizeof directory, "/run/jobd/keeper");
    if (mkdir(directory, 0700) != 0 && errno != EEXIST)
        fprintf(stderr, "jobd-keeper: cannot create %s: %s\n", directory, strerror(errno));

    // Under systemd: jobd notifies the keeper, which relays. Without NOTIFY_SOCKET there is nobody to tell.
    struct sockaddr_un systemd;
    socklen_t systemd_length = 0;
    int out_fd = -1, relay_fd = -1;
    char relay_name[128] = "";
    if (systemd_address(&systemd, &systemd_length) == 0) {
        out_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        relay_fd = open_relay(relay_name, sizeof relay_name);
        if (relay_fd < 0) fprintf(stderr, "jobd-keeper: cannot open a socket to relay jobd's notifications: %s\n", strerror(errno));
    }
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0 || pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "jobd-keeper: cannot make a pipe: %s\n", strerror(errno));
        return 1;
    }
    // The keeper and the holder live in a leaf of their own, `keeper`, so that jobd is alone in the
    // unit's cgroup (it gives each run a cgroup below it, and cgroup v2 keeps processes out of a
    // cgroup whose controllers are enabled for its children). Where the cgroup is not the unit's to
    // change (no Delegate=), all stay where they are and jobd tracks runs by process group.
    find_unit_cgroup();
    if (unit_cgroup[0] != '\0') {
        char leaf[4200];
        snprintf(leaf, sizeof leaf, "%s/keeper", unit_cgroup);
        if ((mkdir(leaf, 0755) != 0 && errno != EEXIST) || enter_cgroup(leaf) != 0) unit_cgroup[0] = '\0';
    }
    // A mask inherited from whoever started the keeper (a test runner blocks nearly every signal)
    // would hold back SIGTERM in jobd, which inherits it: start with none blocked.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    pid_t holder = fork();
    if (holder == 0) {
        close(report[0]);
        if (relay_fd >= 0) close(relay_fd);
        if (out_fd >= 0) close(out_fd);
        return hold(argv + 1, directory, report[1], relay_fd >= 0 ? relay_name : NULL, getppid());
    }
    if (holder < 0) {
        fprintf(stderr, "jobd-keeper: cannot fork: %s\n", strerror(errno));
        return 1;
    }
    close(report[1]);
    const char *count = getenv("LISTEN_FDS");
    for (int fd = 3, last = 3 + (count ? atoi(count) : 0); fd < last; fd++)
        if (fd != report[0] && fd != signal_pipe[0] && fd != signal_pipe[1] && fd != relay_fd && fd != out_fd) close(fd);

    // systemd's signals, jobd's: SIGABRT is the watchdog's, SIGUSR2 the tests' stall.
    struct sigaction action = {.sa_handler = note_signal, .sa_flags = SA_RESTART};
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);

    pid_t worker = 0;
    int exit_status = -1;
    char line[64];
    size_t used = 0;
    while (exit_status < 0) {
        struct pollfd fds[3] = {{.fd = report[0], .events = POLLIN}, {.fd = signal_pipe[0], .events = POLLIN},
                                {.fd = relay_fd, .events = POLLIN}};
        if (poll(fds, relay_fd >= 0 ? 3 : 2, -1) < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        // The holder's word first: jobd's pid, before its first notification is judged by it.
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            ssize_t size = read(report[0], line + used, sizeof line - 1 - used);
            if (size <= 0) exit_status = 1;  // the holder died without a word
            used += size > 0 ? (size_t)size : 0;
            line[used] = '\0';
            char *end;
            while ((end = strchr(line, '\n')) != NULL) {
                *end = '\0';
                if (line[0] == 'W') worker = (pid_t)atoi(line + 1);
                if (line[0] == 'X') exit_status = atoi(line + 1);
                used -= (size_t)(end + 1 - line);
                memmove(line, end + 1, used + 1);
            }
        }
        // Then what jobd sent, all of it before the keeper exits (its descriptors, at a handover).
        if (relay_fd >= 0) relay(relay_fd, out_fd, &systemd, systemd_length, worker);
        unsigned char sig;
        while (read(signal_pipe[0], &sig, 1) == 1) {
            if (worker <= 0 || exit_status >= 0) continue;
            kill(worker, sig);
            // The watchdog's abort must reach a jobd that is stopped, too.
            if (sig == SIGABRT) kill(worker, SIGCONT);
        }
    }
    return exit_status;
}
