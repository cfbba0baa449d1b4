// jobd-cgexec: the one program that runs as root between jobd and a run's command, wherever the run
// needs a cgroup or a switch of credentials (issue 26). jobd starts it with an empty environment, so
// that nothing a job controls (LD_PRELOAD, GCONV_PATH, ...) reaches a process that runs as root:
//
//   jobd-cgexec [--cgroup DIR]... [--rlimit RESOURCE:SOFT:HARD]... [--nice N] [--ioprio VALUE] [--sched POLICY:PRIORITY]
//               [--umask OCTAL] [--groups G,G...] [--gid GID] [--uid UID] [--directory [-]DIR]
//               [--fence FILE [--fence-stop USEC]] -- COMMAND [ARGUMENT...]
//     reads the job's environment from stdin (NAME=value entries, each ended by a NUL, then one
//     more NUL, then EOF: a stream cut short is refused, never run with part of an environment),
//     enters each cgroup directory DIR (writes "0" to DIR/cgroup.procs: the run's cgroup v2, and its
//     twins on the v1 hierarchies (pids, memory, cpu, blkio) where jobd limits the run there), sets the resource
//     limits (RESOURCE an RLIMIT_ number, each limit a number or "infinity"), the nice value, the
//     I/O priority (the kernel's IOPRIO_PRIO_VALUE), the CPU scheduling policy and priority (SCHED_
//     numbers) and the umask, while still root as systemd
//     does (a negative nice value or a raised hard limit needs it), joins a session keyring of the
//     run's own (given to the job's user and group), sets the supplementary groups, then the gid,
//     then the uid (real, effective and saved), changes to the working
//     directory as the job's user (a leading "-": a missing one means "/"), resets glibc's signals 32
//     and 33, which posix_spawn left ignored, to their default, and only then execve()s
//     COMMAND with the job's environment, searching the job's PATH for a name without a slash.
//     stdin becomes /dev/null for the command. When stdin is a socket (jobd passes one end of a
//     socketpair), a failure before the command runs is told back on it, and a successful execve
//     closes it (close-on-exec), so that jobd tells a failed start from a command that failed.
//     With --fence (a fleet run), it forks once it is in the cgroups: the child goes on as above
//     (attributes, credentials, directory, command), the parent stays as the run's supervisor, with
//     jobd's priority and limits, and stops the run when the deadline in FILE passes (SIGKILL USEC
//     later; see fence.c).
//
//   jobd-cgexec [--groups G,G...] [--gid GID] [--uid UID] --limit BYTES --read FILE...
//     switches credentials as above, then reads each FILE as that user (EnvironmentFile= of a User=
//     job) and writes, for each, a line "ERRNO MODE SIZE" and then SIZE bytes to stdout; ERRNO is
//     EFBIG for a file over BYTES, and a MODE other than a regular file's comes with no bytes.
//
// Exit statuses, as systemd's for the same failures: 200 (EXIT_CHDIR), 201 (EXIT_NICE), 203
// (EXIT_EXEC), 205 (EXIT_LIMITS), 211 (EXIT_IOPRIO), 214 (EXIT_SETSCHEDULER), 216 (EXIT_GROUP), 217 (EXIT_USER), 219
// (EXIT_CGROUP), 237 (EXIT_KEYRING); the reason goes to the status socket, or to
// stderr. posix_spawn has no cgroup or credential attributes in glibc 2.36, a fork of jobd cannot
// call setuid safely (see JobRunner.swift), and a C program starts in well under a millisecond.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fence.h"
#include "sandbox.h"

enum {
    EXIT_USAGE = 2, EXIT_CHDIR = 200, EXIT_NICE = 201, EXIT_EXEC = 203, EXIT_LIMITS = 205, EXIT_IOPRIO = 211, EXIT_SETSCHEDULER = 214,
    EXIT_GROUP = 216, EXIT_USER = 217, EXIT_CGROUP = 219, EXIT_KEYRING = 237
};

// systemd's default PATH for services, as jobd gives a job without its own (JobRunner.defaultPath).
static const char default_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
// Where a failure before the command is reported: the status socket once it is known, else stderr.
static int status_fd = -1;

void fail(int code, const char *format, ...) {
    char message[8192];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    if (status_fd < 0 || send(status_fd, message, strlen(message), MSG_NOSIGNAL) < 0)
        dprintf(STDERR_FILENO, "jobd-cgexec: %s\n", message);
    sandbox_abandon();
    _exit(code);
}

static unsigned long number(const char *text, const char *what) {
    char *end;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-') fail(EXIT_USAGE, "%s is not a number: %s", what, text);
    return value;
}

// All of descriptor fd, up to `limit` bytes and one more (so that a caller sees it was over).
static char *read_all(int fd, size_t limit, size_t *count) {
    size_t capacity = 4096;
    char *bytes = malloc(capacity);
    *count = 0;
    while (bytes != NULL) {
        if (*count == capacity) {
            if (capacity > limit) break;
            capacity *= 2;
            char *grown = realloc(bytes, capacity);
            if (grown == NULL) free(bytes);
            bytes = grown;
            continue;
        }
        ssize_t got = read(fd, bytes + *count, capacity - *count);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            free(bytes);
            return NULL;
        }
        if (got == 0) break;
        *count += (size_t)got;
    }
    return bytes;
}

struct credentials {
    const char *groups;  // comma-separated; NULL keeps jobd's
    const char *gid, *uid;
};

// The supplementary groups of `wanted` (NULL when jobd's are kept), and their count.
static const gid_t *group_list(const struct credentials *wanted, size_t *count) {
    static gid_t list[NGROUPS_MAX];
    *count = 0;
    if (wanted->groups == NULL) return NULL;
    for (const char *cursor = wanted->groups; *cursor != '\0';) {
        char word[32];
        size_t length = strcspn(cursor, ",");
        if (length == 0 || length >= sizeof word || *count == NGROUPS_MAX) fail(EXIT_GROUP, "bad group list: %s", wanted->groups);
        memcpy(word, cursor, length);
        word[length] = '\0';
        list[(*count)++] = (gid_t)number(word, "a group");
        cursor += length + (cursor[length] == ',');
    }
    return list;
}

static void switch_credentials(const struct credentials *wanted) {
    size_t count;
    const gid_t *list = group_list(wanted, &count);
    if (list != NULL && setgroups(count, list) != 0) fail(EXIT_GROUP, "cannot set the supplementary groups %s: %s", wanted->groups, strerror(errno));
    if (wanted->gid != NULL) {
        gid_t gid = (gid_t)number(wanted->gid, "the gid");
        // (gid_t)-1 would mean "leave it unchanged" to setresgid: never a switch to make.
        if (gid == (gid_t)-1 || gid != number(wanted->gid, "the gid")) fail(EXIT_GROUP, "not a gid: %s", wanted->gid);
        if (setresgid(gid, gid, gid) != 0) fail(EXIT_GROUP, "cannot switch to gid %s: %s", wanted->gid, strerror(errno));
    }
    if (wanted->uid != NULL) {
        uid_t uid = (uid_t)number(wanted->uid, "the uid");
        if (uid == (uid_t)-1 || uid != number(wanted->uid, "the uid")) fail(EXIT_USER, "not a uid: %s", wanted->uid);
        if (setresuid(uid, uid, uid) != 0) fail(EXIT_USER, "cannot switch to uid %s: %s", wanted->uid, strerror(errno));
    }
}

static void enter_cgroup(const char *directory) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/cgroup.procs", directory) >= (int)sizeof path)
        fail(EXIT_CGROUP, "cgroup path too long: %s", directory);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    // jobd created the cgroup just before; under load it was seen gone by now (about 1 run in
    // 10,000 in a hybrid-hierarchy container, cause unknown), so it is made again once.
    if (fd < 0 && errno == ENOENT && (mkdir(directory, 0755) == 0 || errno == EEXIST))
        fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) fail(EXIT_CGROUP, "cannot enter the run's cgroup %s: %s", directory, strerror(errno));
    close(fd);
}

// The attributes of the run's process that need root: resource limits, nice value, I/O priority.
struct attributes {
    const char *rlimits[16];  // "RESOURCE:SOFT:HARD"
    size_t rlimit_count;
    const char *nice, *ioprio, *sched, *umask;
};

static rlim_t limit_value(const char *text, const char *whole) {
    if (strcmp(text, "infinity") == 0) return RLIM_INFINITY;
    return (rlim_t)number(text, whole);
}

static void apply_attributes(const struct attributes *wanted) {
    for (size_t i = 0; i < wanted->rlimit_count; i++) {
        char text[128];
        if (snprintf(text, sizeof text, "%s", wanted->rlimits[i]) >= (int)sizeof text) fail(EXIT_USAGE, "bad limit: %s", wanted->rlimits[i]);
        char *soft = strchr(text, ':');
        char *hard = soft == NULL ? NULL : strchr(soft + 1, ':');
        if (hard == NULL) fail(EXIT_USAGE, "bad limit: %s", wanted->rlimits[i]);
        *soft++ = '\0';
        *hard++ = '\0';
        unsigned long resource = number(text, "a resource");
        struct rlimit limit = {limit_value(soft, wanted->rlimits[i]), limit_value(hard, wanted->rlimits[i])};
        if (setrlimit((int)resource, &limit) != 0)
            fail(EXIT_LIMITS, "cannot set resource limit %s: %s", wanted->rlimits[i], strerror(errno));
    }
    if (wanted->nice != NULL) {
        char *end;
        errno = 0;
        long value = strtol(wanted->nice, &end, 10);
        if (errno != 0 || *end != '\0' || value < -20 || value > 19) fail(EXIT_USAGE, "bad nice value: %s", wanted->nice);
        if (setpriority(PRIO_PROCESS, 0, (int)value) != 0) fail(EXIT_NICE, "cannot set nice value %s: %s", wanted->nice, strerror(errno));
    }
    if (wanted->ioprio != NULL) {
        // ioprio_set(IOPRIO_WHO_PROCESS, 0, value): glibc has no wrapper.
        if (syscall(SYS_ioprio_set, 1, 0, (int)number(wanted->ioprio, "the I/O priority")) != 0)
            fail(EXIT_IOPRIO, "cannot set I/O priority %s: %s", wanted->ioprio, strerror(errno));
    }
    if (wanted->sched != NULL) {
        char *end;
        unsigned long policy = strtoul(wanted->sched, &end, 10);
        if (*end != ':') fail(EXIT_USAGE, "bad scheduling: %s", wanted->sched);
        struct sched_param parameter = {.sched_priority = (int)number(end + 1, "the scheduling priority")};
        if (sched_setscheduler(0, (int)policy, &parameter) != 0)
            fail(EXIT_SETSCHEDULER, "cannot set CPU scheduling %s: %s", wanted->sched, strerror(errno));
    }
    if (wanted->umask != NULL) {
        char *end;
        unsigned long mask = strtoul(wanted->umask, &end, 8);
        if (*end != '\0' || end == wanted->umask || mask > 0777) fail(EXIT_USAGE, "bad umask: %s", wanted->umask);
        umask((mode_t)mask);
    }
}

// A session keyring of the run's own, as systemd gives every system service (KeyringMode=private):
// jobd's own would otherwise be every run's, and a run as User=nobody (or a user's own job) would
// possess it and every key a root job left in it. Made while still root, then given to the job's
// user and group as systemd gives it (systemd makes it with the user's real uid instead; a user
// whose key quota is full makes that fail, and then the service keeps the manager's keyring: here
// the run keeps its own, root's, which it possesses all the same). Where the kernel has no keyrings
// or a filter refuses keyctl() (a container's seccomp filter, which every run inherits too), there is
// no keyring to share, and the run goes on, as systemd's does.
static void join_session_keyring(const struct credentials *wanted) {
    long keyring = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
    if (keyring < 0) {
        if (errno == ENOSYS || errno == EPERM || errno == EACCES) return;
        fail(EXIT_KEYRING, "cannot make the run's session keyring: %s", strerror(errno));
    }
    if (wanted->uid != NULL || wanted->gid != NULL) {
        uid_t uid = wanted->uid != NULL ? (uid_t)number(wanted->uid, "the uid") : (uid_t)-1;
        gid_t gid = wanted->gid != NULL ? (gid_t)number(wanted->gid, "the gid") : (gid_t)-1;
        syscall(SYS_keyctl, KEYCTL_CHOWN, keyring, uid, gid);
    }
}

// glibc's two internal signals (32 and 33) back to their default, so that the command starts with
// every signal at its default, as systemd starts a service (reset_all_signal_handlers). jobd spawns
// this program with POSIX_SPAWN_SETSIGDEF for every other signal, but glibc's posix_spawn leaves
// these two ignored in the child when the parent has handlers for them, as every threaded program
// has, and glibc's own sigaction refuses to touch them; an ignored signal stays ignored across
// execve. The raw system call takes them: an all-zero kernel sigaction is SIG_DFL with no flags and
// an empty mask on every architecture. (All 64 would cost 17 µs of CPU a run here; these two, 0.6.)
static void reset_glibc_signals(void) {
    unsigned long defaults[8] = {0};
    for (int signal = 32; signal <= 33; signal++) syscall(SYS_rt_sigaction, signal, defaults, NULL, sizeof(uint64_t));
}

// Reads each file as the switched user and writes it framed to stdout (see the top of the file).
static int read_files(char **files, size_t limit) {
    for (; *files != NULL; files++) {
        int error = 0;
        struct stat status = {0};
        size_t count = 0;
        char *bytes = NULL;
        int fd = open(*files, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 || fstat(fd, &status) != 0) {
            error = errno;
        } else if (S_ISREG(status.st_mode)) {
            bytes = read_all(fd, limit, &count);
            if (bytes == NULL) error = errno;
            else if (count > limit) error = EFBIG;
        }
        if (fd >= 0) close(fd);
        if (error != 0 || !S_ISREG(status.st_mode)) count = 0;
        printf("%d %u %zu\n", error, (unsigned)status.st_mode, count);
        if (count > 0) fwrite(bytes, 1, count, stdout);
        free(bytes);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

// The job's environment from stdin: NAME=value entries, each ended by a NUL, and an empty entry
// (one more NUL) that says it is complete.
static char **read_environment(void) {
    size_t count;
    char *bytes = read_all(STDIN_FILENO, 64u << 20, &count);
    if (bytes == NULL) fail(EXIT_EXEC, "cannot read the job's environment: %s", strerror(errno));
    if (count > 64u << 20) fail(EXIT_EXEC, "the job's environment is larger than 64 MiB");
    if (count == 0 || bytes[count - 1] != '\0' || (count > 1 && bytes[count - 2] != '\0'))
        fail(EXIT_EXEC, "the job's environment was cut short");
    count--;  // the empty entry at the end
    size_t entries = 0;
    for (size_t i = 0; i < count; i++) entries += bytes[i] == '\0';
    char **environment = calloc(entries + 1, sizeof *environment);
    if (environment == NULL) fail(EXIT_EXEC, "cannot read the job's environment: %s", strerror(errno));
    for (size_t i = 0, start = 0, next = 0; i < count; i++) {
        if (bytes[i] != '\0') continue;
        environment[next++] = bytes + start;
        start = i + 1;
    }
    return environment;
}

// execve(2) of `command` with `environment`, a name without a slash searched in the job's PATH
// (as execvp would search it, but in the job's PATH, not this process's); returns only on failure.
static void execute(char **argv, char **environment) {
    const char *command = argv[0];
    if (strchr(command, '/') != NULL) {
        execve(command, argv, environment);
        fail(EXIT_EXEC, "%s: %s", command, strerror(errno));
    }
    const char *path = default_path;
    for (char **entry = environment; *entry != NULL; entry++)
        if (strncmp(*entry, "PATH=", 5) == 0) path = *entry + 5;
    int denied = 0;
    for (const char *cursor = path;;) {
        size_t length = strcspn(cursor, ":");
        char candidate[4096];
        if (snprintf(candidate, sizeof candidate, "%.*s/%s", (int)length, length == 0 ? "." : cursor,
                     command) < (int)sizeof candidate) {
            execve(candidate, argv, environment);
            if (errno == EACCES) denied = 1;
            else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV && errno != ETIMEDOUT)
                fail(EXIT_EXEC, "%s: %s", candidate, strerror(errno));
        }
        if (cursor[length] == '\0') break;
        cursor += length + 1;
    }
    if (denied) fail(EXIT_EXEC, "%s: %s", command, strerror(EACCES));
    fail(EXIT_EXEC, "%s: executable not found in PATH", command);
}

int main(int argc, char **argv) {
    struct credentials wanted = {0};
    struct attributes attributes = {0};
    const char *cgroups[8] = {0}, *directory = NULL, *fence = NULL, *fence_stop = "infinity";
    size_t cgroup_count = 0;
    size_t limit = 0;
    int reading = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *option = argv[i];
        if (strcmp(option, "--read") == 0) {
            reading = 1;
            continue;
        }
        int sandboxing = sandbox_option(option, i + 1 < argc ? argv[i + 1] : NULL);
        if (sandboxing >= 0) {
            i += sandboxing;
            continue;
        }
        if (i + 1 == argc) fail(EXIT_USAGE, "%s needs a value", option);
        const char *value = argv[++i];
        if (strcmp(option, "--cgroup") == 0) {
            if (cgroup_count == sizeof cgroups / sizeof *cgroups) fail(EXIT_USAGE, "too many --cgroup options");
            cgroups[cgroup_count++] = value;
        }
        else if (strcmp(option, "--rlimit") == 0) {
            if (attributes.rlimit_count == sizeof attributes.rlimits / sizeof *attributes.rlimits) fail(EXIT_USAGE, "too many --rlimit options");
            attributes.rlimits[attributes.rlimit_count++] = value;
        } else if (strcmp(option, "--nice") == 0) attributes.nice = value;
        else if (strcmp(option, "--ioprio") == 0) attributes.ioprio = value;
        else if (strcmp(option, "--sched") == 0) attributes.sched = value;
        else if (strcmp(option, "--umask") == 0) attributes.umask = value;
        else if (strcmp(option, "--groups") == 0) wanted.groups = value;
        else if (strcmp(option, "--gid") == 0) wanted.gid = value;
        else if (strcmp(option, "--uid") == 0) wanted.uid = value;
        else if (strcmp(option, "--directory") == 0) directory = value;
        else if (strcmp(option, "--fence") == 0) fence = value;
        else if (strcmp(option, "--fence-stop") == 0) fence_stop = value;
        else if (strcmp(option, "--limit") == 0) limit = number(value, "the limit");
        else fail(EXIT_USAGE, "unknown option %s", option);
    }
    if (i + 1 >= argc) fail(EXIT_USAGE, "usage: jobd-cgexec [OPTION...] -- COMMAND [ARGUMENT...] (see its source)");
    if (reading) {
        switch_credentials(&wanted);
        return read_files(argv + i + 1, limit);
    }
    // The environment first: jobd writes it while this runs, and waits for it to be read.
    char **environment = read_environment();
    int socket_type = 0;
    socklen_t length = sizeof socket_type;
    if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_TYPE, &socket_type, &length) == 0)
        status_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, STDIN_FILENO) < 0) fail(EXIT_EXEC, "cannot open /dev/null: %s", strerror(errno));
    close(null);
    for (size_t entered = 0; entered < cgroup_count; entered++) enter_cgroup(cgroups[entered]);
    // The supervisor forks before the job's attributes: a Nice=, CPUSchedulingPolicy= or LimitCPU=
    // of the job must not slow or end the run's fence.
    if (fence != NULL && fence_supervise(fence, fence_stop, cgroup_count > 0 ? cgroups[0] : NULL, status_fd) != 0)
        fail(EXIT_EXEC, "cannot start the run's fence supervisor: %s", strerror(errno));
    apply_attributes(&attributes);
    struct path_credentials as = {0};
    if (wanted.uid != NULL && wanted.gid != NULL) {
        as = (struct path_credentials){(uid_t)number(wanted.uid, "the uid"), (gid_t)number(wanted.gid, "the gid"), 0, NULL};
        as.groups = group_list(&wanted, &as.group_count);
    }
    sandbox_apply_as_root(cgroup_count > 0 ? cgroups[0] : NULL, wanted.uid != NULL && strcmp(wanted.uid, "0") != 0,
                          wanted.uid != NULL && wanted.gid != NULL ? &as : NULL);
    join_session_keyring(&wanted);
    switch_credentials(&wanted);
    if (directory != NULL) {
        int optional = directory[0] == '-';
        if (optional) directory++;
        if (chdir(directory) != 0) {
            if (!optional || (errno != ENOENT && errno != ENOTDIR) || chdir("/") != 0)
                fail(EXIT_CHDIR, "cannot change to the working directory %s: %s", directory, strerror(errno));
        }
    }
    reset_glibc_signals();
    sandbox_apply_last();
    execute(argv + i + 1, environment);
}
