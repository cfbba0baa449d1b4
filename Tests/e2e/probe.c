/* The differential test's probe (Tests/e2e/differential.sh): run once by systemd-run and once by
 * jobd with the same keys, it prints one field=value line per fact of the process it runs as, only
 * facts that do not depend on who started it (no pids, times or namespace ids), so that the two
 * reports can be compared line by line. A call the sandbox may kill is made in a child, so that
 * the kill is observed and reported (killed-by-SIGSYS) instead of ending the probe.
 *
 *   jobd-e2e-probe                 the report
 *   jobd-e2e-probe allocate MB     touches MB megabytes of memory, then says so
 *   jobd-e2e-probe spin SECONDS    a busy loop for SECONDS of wall-clock time; prints the CPU time used
 *   jobd-e2e-probe fork N          forks up to N children that wait; prints how many it got
 *
 * Built on the host (Debian 12, as the container) with cc; needs only libc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/keyctl.h>
#include <linux/netlink.h>

/* The marker files the test makes in the container's own /tmp and /var/tmp before any run. */
#define HOST_MARKER "jobd-e2e-host-marker"

static const char *errno_name(int error) {
    const char *name = strerrorname_np(error);
    return name ? name : "E?";
}

/* "ok", or the errno's name, of a call that returned -1 on failure. */
static const char *outcome(long result) {
    return result < 0 ? errno_name(errno) : "ok";
}

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The value of one line of /proc/self/status ("CapEff:\t000..."), with its whitespace removed. */
static void print_status_field(const char *field, const char *name) {
    FILE *status = fopen("/proc/self/status", "re");
    char line[4096];
    size_t length = strlen(field);
    const char *value = "missing";
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, field, length) == 0 && line[length] == ':') {
            char *start = line + length + 1;
            start += strspn(start, " \t");
            start[strcspn(start, "\n")] = '\0';
            for (char *tab; (tab = strchr(start, '\t'));) *tab = ' ';
            value = start;
            break;
        }
    }
    printf("%s=%s\n", name, value);
    if (status) fclose(status);
}

static void print_limits(void) {
    static const struct { int resource; const char *name; } limits[] = {
        {RLIMIT_CPU, "cpu"}, {RLIMIT_FSIZE, "fsize"}, {RLIMIT_DATA, "data"}, {RLIMIT_STACK, "stack"},
        {RLIMIT_CORE, "core"}, {RLIMIT_RSS, "rss"}, {RLIMIT_NPROC, "nproc"}, {RLIMIT_NOFILE, "nofile"},
        {RLIMIT_MEMLOCK, "memlock"}, {RLIMIT_AS, "as"}, {RLIMIT_LOCKS, "locks"},
        {RLIMIT_SIGPENDING, "sigpending"}, {RLIMIT_MSGQUEUE, "msgqueue"}, {RLIMIT_NICE, "nice"},
        {RLIMIT_RTPRIO, "rtprio"}, {RLIMIT_RTTIME, "rttime"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        struct rlimit limit;
        if (getrlimit(limits[i].resource, &limit) != 0) {
            printf("limit_%s=%s\n", limits[i].name, errno_name(errno));
            continue;
        }
        printf("limit_%s=", limits[i].name);
        if (limit.rlim_cur == RLIM_INFINITY) printf("infinity"); else printf("%llu", (unsigned long long)limit.rlim_cur);
        if (limit.rlim_max == RLIM_INFINITY) printf(":infinity\n"); else printf(":%llu\n", (unsigned long long)limit.rlim_max);
    }
}

static void print_scheduling(void) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    printf("nice=%d\n", errno ? -100 : nice);
    /* ioprio_get(IOPRIO_WHO_PROCESS, self): class in the top bits, data in the low 13. */
    long ioprio = syscall(SYS_ioprio_get, 1, 0);
    static const char *const io_classes[] = {"none", "realtime", "best-effort", "idle"};
    if (ioprio < 0) printf("io_scheduling=%s\n", errno_name(errno));
    else printf("io_scheduling=%s:%ld\n", io_classes[(ioprio >> 13) & 3], ioprio & 0x1fff);
    int policy = sched_getscheduler(0);
    struct sched_param parameter = {0};
    sched_getparam(0, &parameter);
    const char *name = "other";
    switch (policy & ~SCHED_RESET_ON_FORK) {
    case SCHED_FIFO: name = "fifo"; break;
    case SCHED_RR: name = "rr"; break;
    case SCHED_BATCH: name = "batch"; break;
    case SCHED_IDLE: name = "idle"; break;
    }
    printf("cpu_scheduling=%s:%d%s\n", name, parameter.sched_priority, (policy & SCHED_RESET_ON_FORK) ? ":reset-on-fork" : "");
    char slack[64] = "";
    printf("oom_score_adj=");
    FILE *file = fopen("/proc/self/oom_score_adj", "re");
    if (file && fgets(slack, sizeof slack, file)) printf("%s", slack); else printf("%s\n", errno_name(errno));
    if (file) fclose(file);
}

static void print_credentials(void) {
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    getresuid(&ruid, &euid, &suid);
    getresgid(&rgid, &egid, &sgid);
    printf("uid=%u:%u:%u\ngid=%u:%u:%u\n", ruid, euid, suid, rgid, egid, sgid);
    gid_t groups[256];
    int count = getgroups(256, groups);
    printf("groups=");
    for (int i = 0; i < count; i++) printf("%s%u", i ? "," : "", groups[i]);
    printf("\n");
    mode_t mask = umask(0);
    umask(mask);
    printf("umask=%04o\n", mask);
    char cwd[4096];
    printf("cwd=%s\n", getcwd(cwd, sizeof cwd) ? cwd : errno_name(errno));
    print_status_field("CapInh", "cap_inheritable");
    print_status_field("CapPrm", "cap_permitted");
    print_status_field("CapEff", "cap_effective");
    print_status_field("CapBnd", "cap_bounding");
    print_status_field("CapAmb", "cap_ambient");
    print_status_field("NoNewPrivs", "no_new_privs");
    print_status_field("Seccomp", "seccomp");
    print_status_field("SigIgn", "signals_ignored");
    print_status_field("SigBlk", "signals_blocked");
    printf("securebits=%d\n", prctl(PR_GET_SECUREBITS));
    printf("dumpable=%d\n", prctl(PR_GET_DUMPABLE));
    printf("personality=%#x\n", personality(0xffffffff));
}

/* Whether a directory can be listed and shows anything (an inaccessible or empty tmpfs mount
 * shows nothing; the test puts a marker in /home and /root), and whether it is writable. */
static void print_paths(void) {
    static const char *const paths[] = {"/usr", "/etc", "/home", "/root", "/var", "/boot", "/srv", "/opt",
        "/proc/sys", "/sys", "/sys/fs/cgroup", "/run", "/tmp", "/var/tmp"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        DIR *directory = opendir(paths[i]);
        const char *visible;
        if (!directory) {
            visible = errno_name(errno);
        } else {
            struct dirent *entry;
            visible = "empty";
            while ((entry = readdir(directory))) {
                if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) { visible = "yes"; break; }
            }
            closedir(directory);
        }
        printf("path %s visible=%s\n", paths[i], visible);
        printf("path %s writable=%s\n", paths[i], outcome(access(paths[i], W_OK)));
    }
    /* The test's markers: whether /tmp and /var/tmp are the container's own. */
    printf("tmp_is_hosts=%s\n", access("/tmp/" HOST_MARKER, F_OK) == 0 ? "yes" : errno_name(errno));
    printf("var_tmp_is_hosts=%s\n", access("/var/tmp/" HOST_MARKER, F_OK) == 0 ? "yes" : errno_name(errno));
    printf("proc_kmsg_readable=%s\n", outcome(access("/proc/kmsg", R_OK)));
}

static void print_devices(void) {
    DIR *directory = opendir("/dev");
    char *names[1024];
    size_t count = 0;
    struct dirent *entry;
    while (directory && count < 1024 && (entry = readdir(directory))) {
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) names[count++] = strdup(entry->d_name);
    }
    if (directory) closedir(directory);
    qsort(names, count, sizeof names[0], compare_strings);
    printf("devices=");
    for (size_t i = 0; i < count; i++) { printf("%s%s", i ? "," : "", names[i]); free(names[i]); }
    printf("\n");
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    printf("dev_null_open=%s\n", outcome(null));
    if (null >= 0) close(null);
}

static void print_network(void) {
    int netlink = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    printf("socket_netlink=%s\n", outcome(netlink));
    if (netlink >= 0) close(netlink);
    int inet = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    printf("socket_inet=%s\n", outcome(inet));
    if (inet >= 0) close(inet);
    /* The interfaces and whether each is up: a private network has a loopback that is down. */
    struct ifaddrs *addresses;
    printf("interfaces=");
    if (getifaddrs(&addresses) == 0) {
        const char *separator = "";
        for (struct ifaddrs *address = addresses; address; address = address->ifa_next) {
            if (!address->ifa_addr || address->ifa_addr->sa_family != AF_PACKET) continue;
            printf("%s%s:%s", separator, address->ifa_name, (address->ifa_flags & IFF_UP) ? "up" : "down");
            separator = ",";
        }
        freeifaddrs(addresses);
        printf("\n");
    } else {
        printf("%s\n", errno_name(errno));
    }
    char hostname[256] = "";
    gethostname(hostname, sizeof hostname);
    printf("hostname=%s\n", hostname);
}

/* What a call made in a child comes to: ok, its errno's name, or the signal that killed the child
 * (a SystemCallFilter= without SystemCallErrorNumber= kills with SIGSYS). */
enum call { SET_HOSTNAME, SET_CLOCK, MMAP_WX, MPROTECT_X, UNSHARE_USER, UNSHARE_MOUNT, UNSHARE_NET, PERSONALITY,
    SWAPOFF, SYSLOG, FINIT_MODULE, UMOUNT, REALTIME, PTRACE, KEYCTL, SETPRIORITY_UP, SETUID_BIT, SETGID_BIT };

static long make_call(enum call call, const char *hostname) {
    switch (call) {
    case SET_HOSTNAME: return sethostname(hostname, strlen(hostname));
    case SET_CLOCK: {
        struct timeval now;
        gettimeofday(&now, NULL);
        return settimeofday(&now, NULL);
    }
    case MMAP_WX: {
        void *memory = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return memory == MAP_FAILED ? -1 : 0;
    }
    case MPROTECT_X: {
        void *memory = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) return -1;
        return mprotect(memory, 4096, PROT_READ | PROT_EXEC);
    }
    case UNSHARE_USER: return unshare(CLONE_NEWUSER);
    case UNSHARE_MOUNT: return unshare(CLONE_NEWNS);
    case UNSHARE_NET: return unshare(CLONE_NEWNET);
    case PERSONALITY: return personality(PER_LINUX32);
    /* Calls outside @system-service, made so that they change nothing where they are allowed. */
    case SWAPOFF: return swapoff("/nonexistent-jobd-e2e-swap");
    case SYSLOG: return syscall(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
    case FINIT_MODULE: return syscall(SYS_finit_module, -1, "", 0);
    case UMOUNT: return umount2("/nonexistent-jobd-e2e-mount", 0);
    case REALTIME: {
        struct sched_param parameter = {.sched_priority = 1};
        return sched_setscheduler(0, SCHED_FIFO, &parameter);
    }
    case PTRACE: return syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
    case KEYCTL: return syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* the session keyring */, 0);
    case SETPRIORITY_UP: return setpriority(PRIO_PROCESS, 0, -1);
    /* The set-ID bits on a file of the child's own, in memory: RestrictSUIDSGID= refuses them. */
    case SETUID_BIT: case SETGID_BIT: {
        int file = memfd_create("jobd-e2e-probe", 0);
        if (file < 0) return -1;
        return fchmod(file, call == SETUID_BIT ? 04755 : 02755);
    }
    }
    return 0;
}

static void print_call(const char *name, enum call call, const char *hostname) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        long result = make_call(call, hostname);
        _exit(result < 0 ? (errno & 0xff) : 0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) < 0) {
        printf("call %s=fork-%s\n", name, errno_name(errno));
    } else if (WIFSIGNALED(status)) {
        printf("call %s=killed-by-%s\n", name, sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    } else if (WEXITSTATUS(status) == 0) {
        printf("call %s=ok\n", name);
    } else {
        printf("call %s=%s\n", name, errno_name(WEXITSTATUS(status)));
    }
}

/* The session keyring: whose it is and its permissions (KEYCTL_DESCRIBE's "keyring;UID;GID;PERM;"),
 * and whether a key an earlier probe left in it is there: a keyring shared between runs, whose keys
 * one job (as root) leaves for another (as nobody) to read. Then it leaves that key for the next. */
static void print_keyring(void) {
    char description[256] = "";
    long length = syscall(SYS_keyctl, KEYCTL_DESCRIBE, KEY_SPEC_SESSION_KEYRING, description, sizeof description - 1);
    if (length < 0) {
        printf("session_keyring=%s\n", errno_name(errno));
        return;
    }
    char *name = strrchr(description, ';');
    if (name != NULL) *name = '\0';
    printf("session_keyring=%s\n", description);
    long found = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", "jobd-e2e-probe", 0);
    printf("session_keyring_has_an_earlier_runs_key=%s\n", found >= 0 ? "yes" : errno == ENOKEY ? "no" : errno_name(errno));
    syscall(SYS_add_key, "user", "jobd-e2e-probe", "1", 1, KEY_SPEC_SESSION_KEYRING);
}

static void print_calls(void) {
    char hostname[256] = "";
    gethostname(hostname, sizeof hostname);
    print_call("sethostname", SET_HOSTNAME, hostname);
    print_call("settimeofday", SET_CLOCK, hostname);
    print_call("mmap-write-exec", MMAP_WX, hostname);
    print_call("mprotect-exec", MPROTECT_X, hostname);
    print_call("unshare-user", UNSHARE_USER, hostname);
    print_call("unshare-mount", UNSHARE_MOUNT, hostname);
    print_call("unshare-net", UNSHARE_NET, hostname);
    print_call("personality-linux32", PERSONALITY, hostname);
    print_call("swapoff", SWAPOFF, hostname);
    print_call("syslog", SYSLOG, hostname);
    print_call("finit_module", FINIT_MODULE, hostname);
    print_call("umount2", UMOUNT, hostname);
    print_call("sched_setscheduler-fifo", REALTIME, hostname);
    print_call("ptrace", PTRACE, hostname);
    print_call("keyctl", KEYCTL, hostname);
    print_call("setpriority-raise", SETPRIORITY_UP, hostname);
    print_call("fchmod-setuid", SETUID_BIT, hostname);
    print_call("fchmod-setgid", SETGID_BIT, hostname);
}

/* The resource checks' loads. */
static int allocate(long megabytes) {
    for (long i = 0; i < megabytes; i++) {
        char *block = malloc(1 << 20);
        if (!block) { printf("allocated=%ld\n", i); return 1; }
        memset(block, 1, 1 << 20);
    }
    printf("allocated=%ld\n", megabytes);
    return 0;
}

static double seconds(struct timespec time) { return time.tv_sec + time.tv_nsec / 1e9; }

static int spin(double wall) {
    struct timespec start, now, cpu;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do clock_gettime(CLOCK_MONOTONIC, &now); while (seconds(now) - seconds(start) < wall);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    printf("cpu_seconds=%.3f\nwall_seconds=%.3f\n", seconds(cpu), seconds(now) - seconds(start));
    return 0;
}

/* Children that wait on a pipe the parent closes at the end, so that all are alive at once. */
static int fork_children(long wanted) {
    int gate[2];
    if (pipe(gate) != 0) return 1;
    long made = 0;
    const char *stopped = "none";
    while (made < wanted) {
        pid_t child = fork();
        if (child < 0) { stopped = errno_name(errno); break; }
        if (child == 0) {
            char byte;
            close(gate[1]);
            while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {}
            _exit(0);
        }
        made++;
    }
    close(gate[1]);
    while (wait(NULL) > 0) {}
    printf("forked=%ld\nfork_error=%s\n", made, stopped);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "allocate") == 0) return allocate(atol(argv[2]));
    if (argc == 3 && strcmp(argv[1], "spin") == 0) return spin(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "fork") == 0) return fork_children(atol(argv[2]));
    if (argc != 1) { fprintf(stderr, "usage: jobd-e2e-probe [allocate MB | spin SECONDS | fork N]\n"); return 2; }
    print_scheduling();
    print_limits();
    print_credentials();
    print_keyring();
    print_paths();
    print_devices();
    print_network();
    print_calls();
    return 0;
}
