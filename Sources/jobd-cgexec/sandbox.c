// The sandbox of a run, applied as systemd 252 applies the same keys of a service (systemd.exec(5)),
// from options jobd derives from the job file (JobdConfig's Sandbox+Trampoline.swift):
//
//   --mount MODE:PATH        an entry of the run's mount namespace, in the order given (parents first);
//                            MODE ro, rw, inaccessible, tmpfs (read-only, ProtectHome=tmpfs) or keep (a
//                            path the read-only remounts above it leave alone); a PATH starting with
//                            "-" may be missing
//   --user-paths             the PATHs are looked up with the run's credentials (a user's own job):
//                            one its user cannot reach counts as missing, whether it exists or not
//   --private-dev            a new /dev with only the pseudo devices (PrivateDevices=)
//   --private-tmp TMP:VARTMP directories jobd made, bound on /tmp and /var/tmp (PrivateTmp=)
//   --nosuid-mounts          every mount nosuid (NoNewPrivileges= with a mount namespace)
//   --private-network        a network namespace with only lo, up (PrivateNetwork=)
//   --new-uts                a UTS namespace of its own (ProtectHostname=)
//   --device-policy closed|clock
//                            only the pseudo devices (and the RTC, read-only, for clock) may be
//                            opened: a BPF device program on the run's cgroup v2, as systemd's; where
//                            the kernel refuses it (bpf(2) filtered), a warning and none, as systemd's
//   --bounding HEX, --ambient HEX
//                            the capability bounding set kept, and the ambient capabilities
//   --no-new-privileges
//   --seccomp DEFAULT:ACTION:NAME,...
//                            one seccomp filter: NAMEs get ACTION, other calls DEFAULT; each "allow",
//                            "kill" (the process, SIGSYS) or an errno number
//   --restrict-namespaces HEX, --lock-personality, --restrict-realtime, --memory-deny-write-execute
//                            the filters of those keys, which look at arguments
//
// Mounts are made with the kernel's mount API (mount_setattr: one mount's read-only flag, leaving
// nosuid, nodev and noexec as they are); filters with libseccomp, as systemd makes them, loaded
// (dlopen) only by a run that has one.
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum mode { MODE_RO, MODE_RW, MODE_INACCESSIBLE, MODE_TMPFS, MODE_KEEP };
struct entry {
    enum mode mode;
    int optional, missing;
    char path[4096];
};

static struct {
    struct entry entries[64];
    size_t entry_count;
    int private_dev, nosuid, private_network, new_uts, no_new_privileges, user_paths;
    const char *private_tmp, *device_policy;
    int bounding_set, ambient_set;
    uint64_t bounding, ambient;
    const char *filters[16];
    size_t filter_count;
    int restrict_namespaces, lock_personality, restrict_realtime, deny_write_execute;
    uint64_t allowed_namespaces;
} sandbox;

static uint64_t hex(const char *text, const char *what) {
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 16);
    if (errno != 0 || end == text || *end != '\0') fail(2, "%s is not a hexadecimal mask: %s", what, text);
    return value;
}

int sandbox_option(const char *option, const char *value) {
    if (strcmp(option, "--private-dev") == 0) return sandbox.private_dev = 1, 0;
    if (strcmp(option, "--nosuid-mounts") == 0) return sandbox.nosuid = 1, 0;
    if (strcmp(option, "--private-network") == 0) return sandbox.private_network = 1, 0;
    if (strcmp(option, "--new-uts") == 0) return sandbox.new_uts = 1, 0;
    if (strcmp(option, "--no-new-privileges") == 0) return sandbox.no_new_privileges = 1, 0;
    if (strcmp(option, "--user-paths") == 0) return sandbox.user_paths = 1, 0;
    if (strcmp(option, "--lock-personality") == 0) return sandbox.lock_personality = 1, 0;
    if (strcmp(option, "--restrict-realtime") == 0) return sandbox.restrict_realtime = 1, 0;
    if (strcmp(option, "--memory-deny-write-execute") == 0) return sandbox.deny_write_execute = 1, 0;
    int takes = strcmp(option, "--mount") == 0 || strcmp(option, "--private-tmp") == 0 || strcmp(option, "--device-policy") == 0
        || strcmp(option, "--bounding") == 0 || strcmp(option, "--ambient") == 0 || strcmp(option, "--seccomp") == 0
        || strcmp(option, "--restrict-namespaces") == 0;
    if (!takes) return -1;
    if (value == NULL) fail(2, "%s needs a value", option);
    if (strcmp(option, "--mount") == 0) {
        static const char *modes[] = {"ro:", "rw:", "inaccessible:", "tmpfs:", "keep:"};
        if (sandbox.entry_count == sizeof sandbox.entries / sizeof *sandbox.entries) fail(2, "too many --mount options");
        struct entry *entry = &sandbox.entries[sandbox.entry_count];
        size_t mode = 0;
        while (mode < 5 && strncmp(value, modes[mode], strlen(modes[mode])) != 0) mode++;
        if (mode == 5) fail(2, "bad --mount: %s", value);
        const char *path = value + strlen(modes[mode]);
        entry->mode = (enum mode)mode;
        entry->optional = path[0] == '-';
        path += entry->optional;
        if (path[0] != '/' || snprintf(entry->path, sizeof entry->path, "%s", path) >= (int)sizeof entry->path) fail(2, "bad --mount: %s", value);
        sandbox.entry_count++;
    } else if (strcmp(option, "--private-tmp") == 0) sandbox.private_tmp = value;
    else if (strcmp(option, "--device-policy") == 0) sandbox.device_policy = value;
    else if (strcmp(option, "--bounding") == 0) sandbox.bounding_set = 1, sandbox.bounding = hex(value, "--bounding");
    else if (strcmp(option, "--ambient") == 0) sandbox.ambient_set = 1, sandbox.ambient = hex(value, "--ambient");
    else if (strcmp(option, "--restrict-namespaces") == 0) sandbox.restrict_namespaces = 1, sandbox.allowed_namespaces = hex(value, "--restrict-namespaces");
    else {
        if (sandbox.filter_count == sizeof sandbox.filters / sizeof *sandbox.filters) fail(2, "too many --seccomp options");
        sandbox.filters[sandbox.filter_count++] = value;
    }
    return 1;
}

// --- the mount namespace ---

static void must(int result, int code, const char *what, const char *path) {
    if (result != 0) fail(code, "%s %s: %s", what, path, strerror(errno));
}

// Whether `path` is `top` or below it.
static int under(const char *path, const char *top) {
    size_t length = strlen(top);
    if (strcmp(top, "/") == 0) return 1;
    return strncmp(path, top, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

// The mount points of this namespace, from /proc/self/mountinfo, unescaped; ends with NULL.
static char **mount_points(void) {
    FILE *file = fopen("/proc/self/mountinfo", "re");
    if (file == NULL) fail(EXIT_NAMESPACE, "cannot read /proc/self/mountinfo: %s", strerror(errno));
    size_t count = 0, capacity = 64;
    char **points = malloc(capacity * sizeof *points);
    char *line = NULL;
    size_t size = 0;
    while (points != NULL && getline(&line, &size, file) > 0) {
        char *field = line;
        for (int skip = 0; skip < 4 && field != NULL; skip++) field = strchr(field, ' ') ? strchr(field, ' ') + 1 : NULL;
        if (field == NULL) continue;
        field[strcspn(field, " ")] = '\0';
        char *point = malloc(strlen(field) + 1), *out = point;
        if (point == NULL) break;
        for (const char *in = field; *in != '\0'; in++) {
            if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' && in[3] >= '0' && in[3] <= '7') {
                *out++ = (char)((in[1] - '0') << 6 | (in[2] - '0') << 3 | (in[3] - '0'));
                in += 3;
            } else *out++ = *in;
        }
        *out = '\0';
        if (count + 1 == capacity) points = realloc(points, (capacity *= 2) * sizeof *points);
        if (points != NULL) points[count++] = point;
    }
    free(line);
    fclose(file);
    if (points == NULL) fail(EXIT_NAMESPACE, "out of memory");
    points[count] = NULL;
    return points;
}

static void set_read_only(const char *path) {
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
    if (mount_setattr(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &attr, sizeof attr) != 0 && errno != ENOENT)
        fail(EXIT_NAMESPACE, "cannot make %s read-only: %s", path, strerror(errno));
}

// Where the inaccessible nodes are made: a tmpfs (nodes) in an unbindable tmpfs on a directory of
// its own under /run, gone again before the command runs. Unbindable, so that a later recursive
// bind of an entry above it (ProtectSystem=strict's /, ReadOnlyPaths=/run) does not copy it: a
// copy would stay mounted, covered, on the directory, which could then not be removed from the
// host's /run. systemd's are in /run/systemd/inaccessible, made by PID 1.
static char staging[] = "/run/jobd-cgexec-XXXXXX";
static char nodes_path[sizeof staging + 6];
static int staged;
// The new /dev, made under /run and moved onto /dev.
static char dev[] = "/run/jobd-cgexec-dev-XXXXXX";
static int dev_made;

void sandbox_abandon(void) {
    if (staged) {
        (void)umount2(nodes_path, MNT_DETACH);
        (void)umount2(staging, MNT_DETACH);
        rmdir(staging);
    }
    if (dev_made) {
        (void)umount2(dev, MNT_DETACH);
        rmdir(dev);
    }
}

static const char *inaccessible_node(mode_t type) {
    static const struct { mode_t type; const char *name; } nodes[] = {
        {S_IFDIR, "dir"}, {S_IFREG, "reg"}, {S_IFCHR, "chr"}, {S_IFBLK, "blk"}, {S_IFIFO, "fifo"}, {S_IFSOCK, "sock"},
    };
    static char path[64];
    if (!staged) {
        staged = 1;
        if (mkdtemp(staging) == NULL) fail(EXIT_NAMESPACE, "cannot make %s: %s", staging, strerror(errno));
        must(mount("tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=4k"), EXIT_NAMESPACE, "cannot mount a tmpfs on", staging);
        must(mount(NULL, staging, NULL, MS_UNBINDABLE, NULL), EXIT_NAMESPACE, "cannot make unbindable", staging);
        snprintf(nodes_path, sizeof nodes_path, "%s/nodes", staging);
        must(mkdir(nodes_path, 0755), EXIT_NAMESPACE, "cannot make", nodes_path);
        must(mount("tmpfs", nodes_path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=4k"), EXIT_NAMESPACE, "cannot mount a tmpfs on", nodes_path);
        mode_t old = umask(0);
        for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
            snprintf(path, sizeof path, "%s/%s", nodes_path, nodes[i].name);
            int made = nodes[i].type == S_IFDIR ? mkdir(path, 0) : mknod(path, nodes[i].type, makedev(0, 0));
            must(made, EXIT_NAMESPACE, "cannot make", path);
        }
        umask(old);
    }
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++)
        if (nodes[i].type == type) snprintf(path, sizeof path, "%s/%s", nodes_path, nodes[i].name);
    return path;
}

// The /dev/char/MAJOR:MINOR (or block/) link to a node of the private /dev, as systemd's
// clone_device_node() makes for each node it copies (what libudev's users look devices up by); a
// link that cannot be made is left out, as systemd leaves it.
static void link_device_number(const char *dev_root, const char *name, const struct stat *status) {
    char link[160], directory[140];
    snprintf(directory, sizeof directory, "%s/%s", dev_root, S_ISCHR(status->st_mode) ? "char" : "block");
    (void)mkdir(directory, 0755);
    snprintf(link, sizeof link, "%s/%u:%u", directory, major(status->st_rdev), minor(status->st_rdev));
    char target[64];
    snprintf(target, sizeof target, "../%s", name);
    if (symlink(target, link) != 0) return;
}

static void mount_private_dev(void) {
    static const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
    char path[128], target[128];
    if (mkdtemp(dev) == NULL) fail(EXIT_NAMESPACE, "cannot make %s: %s", dev, strerror(errno));
    dev_made = 1;
    must(mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC | MS_STRICTATIME, "mode=0755,size=4m,nr_inodes=64k"), EXIT_NAMESPACE,
         "cannot mount a tmpfs on", dev);
    mode_t old = umask(0);
    static const char *binds[] = {"pts", "shm", "mqueue", "hugepages"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "/dev/%s", binds[i]);
        snprintf(target, sizeof target, "%s/%s", dev, binds[i]);
        mkdir(target, 0755);
        // /dev/pts and /dev/shm must be there; mqueue and hugepages are taken when they are.
        if (mount(path, target, NULL, MS_BIND, NULL) != 0 && i < 2) fail(EXIT_NAMESPACE, "cannot bind %s: %s", path, strerror(errno));
    }
    struct stat status;
    snprintf(target, sizeof target, "%s/ptmx", dev);
    if (lstat("/dev/ptmx", &status) == 0 && S_ISCHR(status.st_mode)) {
        must(mknod(target, status.st_mode, status.st_rdev), EXIT_NAMESPACE, "cannot make", target);
        link_device_number(dev, "ptmx", &status);
    } else must(symlink("pts/ptmx", target), EXIT_NAMESPACE, "cannot make", target);
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        snprintf(path, sizeof path, "/dev/%s", nodes[i]);
        snprintf(target, sizeof target, "%s/%s", dev, nodes[i]);
        if (stat(path, &status) != 0 || !(S_ISCHR(status.st_mode) || S_ISBLK(status.st_mode))) continue;
        if (mknod(target, status.st_mode, status.st_rdev) != 0) {
            // Where mknod is refused (a container without CAP_MKNOD), the node is bound, as systemd does.
            int fd = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
            if (fd >= 0) close(fd);
            must(mount(path, target, NULL, MS_BIND, NULL), EXIT_NAMESPACE, "cannot bind", path);
        }
        link_device_number(dev, nodes[i], &status);
    }
    static const char *links[][2] = {
        {"/run/systemd/journal/dev-log", "log"}, {"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"},
        {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"},
    };
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        snprintf(target, sizeof target, "%s/%s", dev, links[i][1]);
        // As systemd: a link that cannot be made is left out.
        if (symlink(links[i][0], target) != 0) continue;
    }
    if (access("/proc/kcore", F_OK) == 0) {
        snprintf(target, sizeof target, "%s/core", dev);
        if (symlink("/proc/kcore", target) != 0) target[0] = '\0';
    }
    umask(old);
    (void)umount2("/dev", MNT_DETACH);
    must(mount(dev, "/dev", NULL, MS_MOVE, NULL), EXIT_NAMESPACE, "cannot move the private /dev from", dev);
    rmdir(dev);
    dev_made = 0;
}

// Whether `fd`'s file is the root of a mount (statx's STATX_ATTR_MOUNT_ROOT, Linux 5.8); where the
// kernel cannot say, it is taken not to be.
static int is_mount_root(int fd) {
    struct statx status;
    if (statx(fd, "", AT_EMPTY_PATH, 0, &status) != 0) return 0;
    return (status.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (status.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

// An O_PATH descriptor of `path`, followed as systemd chases it (/lib/modules is /usr/lib/modules
// on a merged /usr), looked up as `as` when given: with the user's file-system uid, gid and groups,
// so that root's search permission never reaches past what the user may see. -1 with errno.
static int open_entry(const char *path, const struct path_credentials *as) {
    if (as == NULL) return open(path, O_PATH | O_CLOEXEC);
    static gid_t own[NGROUPS_MAX];
    int own_count = getgroups(NGROUPS_MAX, own);
    if (own_count < 0 || (as->groups != NULL && setgroups(as->group_count, as->groups) != 0))
        fail(EXIT_NAMESPACE, "cannot take the job's groups: %s", strerror(errno));
    // setfsuid() reports no error: the second call reads back what the first set.
    uid_t old_uid = (uid_t)setfsuid(as->uid);
    gid_t old_gid = (gid_t)setfsgid(as->gid);
    int fd = -1, error = EPERM;
    if ((uid_t)setfsuid(as->uid) == as->uid && (gid_t)setfsgid(as->gid) == as->gid) {
        fd = open(path, O_PATH | O_CLOEXEC);
        error = errno;
    }
    setfsuid(old_uid);
    setfsgid(old_gid);
    if ((uid_t)setfsuid(old_uid) != old_uid || setgroups((size_t)own_count, own) != 0) fail(EXIT_NAMESPACE, "cannot take back root's credentials");
    errno = error;
    return fd;
}

// Resolves `entry` into a descriptor and its canonical path; 0 when it is missing (and optional).
// As the user, every failure is one outcome with one message: a path the user cannot reach must
// tell nothing of whether it exists (issue 37: root's lookup was an existence oracle).
static int resolve_entry(struct entry *entry, const struct path_credentials *as) {
    int fd = open_entry(entry->path, as);
    if (fd < 0) {
        if (as != NULL && !entry->optional) fail(EXIT_NAMESPACE, "%s: no such file or directory, or not accessible to the job's user", entry->path);
        if (as == NULL && (errno != ENOENT || !entry->optional)) fail(EXIT_NAMESPACE, "%s: %s", entry->path, strerror(errno));
        entry->missing = 1;
        return -1;
    }
    char link[64], resolved[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, resolved, sizeof resolved - 1);
    if (length < 0) fail(EXIT_NAMESPACE, "cannot resolve %s: %s", entry->path, strerror(errno));
    resolved[length] = '\0';
    snprintf(entry->path, sizeof entry->path, "%s", resolved);
    return fd;
}

static void mount_entries(const struct path_credentials *as) {
    for (size_t i = 0; i < sandbox.entry_count; i++) {
        struct entry *entry = &sandbox.entries[i];
        // Each is resolved just before it is mounted on, and mounted on through its descriptor:
        // nothing swapped in between (a link in a user's directory) can redirect root's mount.
        int fd = resolve_entry(entry, as);
        if (fd < 0) continue;
        char target[64];
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
        if (entry->mode == MODE_TMPFS) {
            must(mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_STRICTATIME | MS_RDONLY, "mode=0755"), EXIT_NAMESPACE, "cannot mount a tmpfs on", entry->path);
        } else if (entry->mode == MODE_INACCESSIBLE) {
            struct stat status;
            must(fstat(fd, &status), EXIT_NAMESPACE, "cannot look at", entry->path);
            // As systemd, an optional ("-") entry that cannot be mounted on because it is gone is
            // left out: an nspawn container's /proc/kmsg is a bind of a deleted FIFO, not the kernel's log.
            if (mount(inaccessible_node(status.st_mode & S_IFMT), target, NULL, MS_BIND, NULL) != 0) {
                if (errno != ENOENT || !entry->optional) fail(EXIT_NAMESPACE, "cannot make inaccessible %s: %s", entry->path, strerror(errno));
            }
        } else if (entry->mode != MODE_KEEP && !is_mount_root(fd)) {
            // A bind onto itself, so that it is a mount of its own: what is above it then leaves it be.
            // Not for a path that is one already (/, /run): the bind would cover the mounts below it
            // made so far (the inaccessible nodes' staging), which would then stay, unreachable, in
            // this namespace, and their directory in the host's /run could not be removed.
            must(mount(target, target, NULL, MS_BIND | MS_REC, NULL), EXIT_NAMESPACE, "cannot bind", entry->path);
        }
        close(fd);
    }
    sandbox_abandon();
    staged = 0;
    // Then each read-only entry, with every mount below it but those under a deeper entry.
    char **points = mount_points();
    for (size_t i = 0; i < sandbox.entry_count; i++) {
        const struct entry *entry = &sandbox.entries[i];
        if (entry->missing || entry->mode == MODE_RW || entry->mode == MODE_KEEP) continue;
        for (char **point = points; *point != NULL; point++) {
            if (!under(*point, entry->path)) continue;
            int deeper = 0;
            for (size_t j = 0; j < sandbox.entry_count && !deeper; j++)
                deeper = j != i && !sandbox.entries[j].missing && strcmp(sandbox.entries[j].path, entry->path) != 0
                    && under(sandbox.entries[j].path, entry->path) && under(*point, sandbox.entries[j].path);
            if (!deeper) set_read_only(*point);
        }
    }
    if (sandbox.nosuid) {
        struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};
        must(mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof attr), EXIT_NAMESPACE, "cannot make nosuid", "/");
    }
    for (char **point = points; *point != NULL; point++) free(*point);
    free(points);
}

static void bring_up_loopback(void) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq request = {0};
    snprintf(request.ifr_name, sizeof request.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &request) != 0) fail(EXIT_NETWORK, "cannot read lo: %s", strerror(errno));
    request.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) fail(EXIT_NETWORK, "cannot bring up lo: %s", strerror(errno));
    close(fd);
}

// --- the device policy: a BPF program on the run's cgroup v2, as systemd's bpf-devices ---

#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})

static int device_major(const char *name) {
    FILE *file = fopen("/proc/devices", "re");
    char line[128], found[64];
    int major = -1, number;
    while (file != NULL && major < 0 && fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "Block", 5) == 0) break;
        if (sscanf(line, "%d %63s", &number, found) == 2 && strcmp(found, name) == 0) major = number;
    }
    if (file != NULL) fclose(file);
    return major;
}

// The device policy on the run's cgroup; NULL, or why the kernel would not take it (a filter
// refusing bpf(2), as a container's default one does, or a kernel without BPF device programs).
static const char *apply_device_policy(const char *cgroup) {
    static char refused[512];
    // type (BPF_DEVCG_DEV_*), major, minor (-1: any), the access allowed (BPF_DEVCG_ACC_*).
    struct { int type, major, minor, access; } allowed[16] = {
        {BPF_DEVCG_DEV_CHAR, 1, 3, 7}, {BPF_DEVCG_DEV_CHAR, 1, 5, 7}, {BPF_DEVCG_DEV_CHAR, 1, 7, 7},
        {BPF_DEVCG_DEV_CHAR, 1, 8, 7}, {BPF_DEVCG_DEV_CHAR, 1, 9, 7}, {BPF_DEVCG_DEV_CHAR, 5, 0, 7},
        {BPF_DEVCG_DEV_CHAR, 5, 2, 7}, {BPF_DEVCG_DEV_CHAR, 136, -1, BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE},
        // The inaccessible nodes (0:0), as systemd allows /run/systemd/inaccessible/{chr,blk}.
        {BPF_DEVCG_DEV_CHAR, 0, 0, 7}, {BPF_DEVCG_DEV_BLOCK, 0, 0, 7},
    };
    size_t count = 10;
    if (strcmp(sandbox.device_policy, "clock") == 0) {
        int rtc = device_major("rtc");
        if (rtc >= 0) allowed[count++] = (typeof(allowed[0])){BPF_DEVCG_DEV_CHAR, rtc, -1, BPF_DEVCG_ACC_READ};
    }
    struct bpf_insn program[16 * 8 + 8];
    size_t n = 0;
    // r2 = type, r3 = access, r4 = major, r5 = minor (struct bpf_cgroup_dev_ctx).
    program[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 2, 1, 0, 0);
    program[n++] = INSN(BPF_ALU | BPF_AND | BPF_K, 2, 0, 0, 0xFFFF);
    program[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 3, 1, 0, 0);
    program[n++] = INSN(BPF_ALU | BPF_RSH | BPF_K, 3, 0, 0, 16);
    program[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 4, 1, 4, 0);
    program[n++] = INSN(BPF_LDX | BPF_W | BPF_MEM, 5, 1, 8, 0);
    for (size_t i = 0; i < count; i++) {
        int minor = allowed[i].minor >= 0;
        short skip = (short)(minor ? 7 : 6);  // to the next entry
        program[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 2, 0, skip--, allowed[i].type);
        program[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 4, 0, skip--, allowed[i].major);
        if (minor) program[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 5, 0, skip--, allowed[i].minor);
        program[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 3, 0, 0);
        program[n++] = INSN(BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, ~allowed[i].access);
        program[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, 1, 0, 2, 0);
        program[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
        program[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
    }
    program[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
    program[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
    union bpf_attr load = {0};
    load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    load.insns = (uint64_t)(uintptr_t)program;
    load.insn_cnt = (uint32_t)n;
    load.license = (uint64_t)(uintptr_t)"GPL";
    int fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof load);
    if (fd < 0) {
        snprintf(refused, sizeof refused, "cannot load the device policy's BPF program: %s", strerror(errno));
        return refused;
    }
    int directory = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    union bpf_attr attach = {0};
    attach.target_fd = (uint32_t)directory;
    attach.attach_bpf_fd = (uint32_t)fd;
    attach.attach_type = BPF_CGROUP_DEVICE;
    attach.attach_flags = BPF_F_ALLOW_MULTI;
    if (directory < 0 || syscall(SYS_bpf, BPF_PROG_ATTACH, &attach, sizeof attach) != 0)
        snprintf(refused, sizeof refused, "cannot attach the device policy to %s: %s", cgroup, strerror(errno));
    if (directory >= 0) close(directory);
    close(fd);
    return refused[0] != '\0' ? refused : NULL;
}

void sandbox_apply_as_root(const char *cgroup, int switches_user, const struct path_credentials *as) {
    if (sandbox.user_paths && as == NULL) fail(2, "--user-paths needs the run's --uid and --gid");
    if (sandbox.device_policy != NULL) {
        if (cgroup == NULL) fail(219, "a device policy needs the run's cgroup v2");
        // As systemd 252 (cgroup_apply_devices): a policy the kernel will not take is warned
        // about and the run goes on without it, its private /dev, filters and bounding set kept.
        const char *refused = apply_device_policy(cgroup);
        if (refused != NULL)
            dprintf(STDERR_FILENO, "jobd-cgexec: warning: %s; the run goes on without its device policy, as a systemd service "
                    "would: the devices it can reach are not limited to the pseudo devices\n", refused);
    }
    int mounts = sandbox.entry_count > 0 || sandbox.private_dev || sandbox.private_tmp != NULL || sandbox.nosuid;
    int flags = (mounts ? CLONE_NEWNS : 0) | (sandbox.private_network ? CLONE_NEWNET : 0) | (sandbox.new_uts ? CLONE_NEWUTS : 0);
    if (flags != 0 && unshare(flags) != 0) fail(EXIT_NAMESPACE, "cannot make the run's namespaces: %s", strerror(errno));
    if (sandbox.private_network) bring_up_loopback();
    if (mounts) {
        // Mounts of the host still reach the run; the run's never reach the host.
        must(mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL), EXIT_NAMESPACE, "cannot make the mounts private:", "/");
        if (sandbox.private_dev) mount_private_dev();
        if (sandbox.private_tmp != NULL) {
            char tmp[4096];
            const char *colon = strchr(sandbox.private_tmp, ':');
            if (colon == NULL || (size_t)(colon - sandbox.private_tmp) >= sizeof tmp) fail(2, "bad --private-tmp: %s", sandbox.private_tmp);
            snprintf(tmp, sizeof tmp, "%.*s", (int)(colon - sandbox.private_tmp), sandbox.private_tmp);
            // Both held open first: the /var/tmp one may be under /tmp, which the first bind hides.
            int tmp_fd = open(tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int var_fd = open(colon + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            char tmp_source[64], var_source[64];
            snprintf(tmp_source, sizeof tmp_source, "/proc/self/fd/%d", tmp_fd);
            snprintf(var_source, sizeof var_source, "/proc/self/fd/%d", var_fd);
            if (tmp_fd < 0 || var_fd < 0) fail(EXIT_NAMESPACE, "cannot open the private /tmp %s: %s", sandbox.private_tmp, strerror(errno));
            must(mount(tmp_source, "/tmp", NULL, MS_BIND | MS_REC, NULL), EXIT_NAMESPACE, "cannot bind the private /tmp", tmp);
            must(mount(var_source, "/var/tmp", NULL, MS_BIND | MS_REC, NULL), EXIT_NAMESPACE, "cannot bind the private /var/tmp", colon + 1);
            close(tmp_fd);
            close(var_fd);
        }
        mount_entries(sandbox.user_paths ? as : NULL);
    }
    if (sandbox.bounding_set) {
        for (unsigned long cap = 0; cap <= 63; cap++) {
            if (sandbox.bounding & (1ULL << cap)) continue;
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
                if (errno == EINVAL) break;  // past the kernel's last capability
                fail(EXIT_CAPABILITIES, "cannot drop capability %lu from the bounding set: %s", cap, strerror(errno));
            }
        }
    }
    // Ambient capabilities survive the switch to the job's user only with the permitted ones kept.
    if (sandbox.ambient != 0 && switches_user && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
        fail(EXIT_CAPABILITIES, "cannot keep capabilities: %s", strerror(errno));
}

// --- after the switch: capabilities, no_new_privs, seccomp ---

static void set_capabilities(uint64_t permitted, uint64_t effective, uint64_t inheritable) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2] = {
        {(uint32_t)effective, (uint32_t)permitted, (uint32_t)inheritable},
        {(uint32_t)(effective >> 32), (uint32_t)(permitted >> 32), (uint32_t)(inheritable >> 32)},
    };
    if (syscall(SYS_capset, &header, data) != 0) fail(EXIT_CAPABILITIES, "cannot set capabilities: %s", strerror(errno));
}

static uint64_t effective_capabilities(void) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2] = {0};
    if (syscall(SYS_capget, &header, data) != 0) return 0;
    return (uint64_t)data[1].effective << 32 | data[0].effective;
}

// libseccomp, loaded only for a run that has a filter (as systemd 253 loads it, dlopen_libseccomp):
// a run without one pays nothing for it. Only its header is used at build time.
static struct {
    scmp_filter_ctx (*init)(uint32_t);
    int (*attr_set)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t);
    int (*resolve_name)(const char *);
    int (*rule_add_array)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *);
    int (*load)(const scmp_filter_ctx);
    void (*release)(scmp_filter_ctx);
} libseccomp;

static void load_libseccomp(void) {
    if (libseccomp.init != NULL) return;
    void *library = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) fail(EXIT_SECCOMP, "cannot load libseccomp.so.2 (Debian's libseccomp2): %s", dlerror());
    void *symbols[6] = {
        dlsym(library, "seccomp_init"), dlsym(library, "seccomp_attr_set"), dlsym(library, "seccomp_syscall_resolve_name"),
        dlsym(library, "seccomp_rule_add_array"), dlsym(library, "seccomp_load"), dlsym(library, "seccomp_release"),
    };
    for (size_t i = 0; i < 6; i++)
        if (symbols[i] == NULL) fail(EXIT_SECCOMP, "libseccomp.so.2 lacks a function jobd-cgexec needs");
    libseccomp.init = (scmp_filter_ctx (*)(uint32_t))symbols[0];
    libseccomp.attr_set = (int (*)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t))symbols[1];
    libseccomp.resolve_name = (int (*)(const char *))symbols[2];
    libseccomp.rule_add_array = (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *))symbols[3];
    libseccomp.load = (int (*)(const scmp_filter_ctx))symbols[4];
    libseccomp.release = (void (*)(scmp_filter_ctx))symbols[5];
}

static uint32_t action(const char *word) {
    if (strcmp(word, "allow") == 0) return SCMP_ACT_ALLOW;
    if (strcmp(word, "kill") == 0) return SCMP_ACT_KILL_PROCESS;
    char *end;
    long number = strtol(word, &end, 10);
    if (*end != '\0' || number < 1 || number > 4095) fail(2, "bad seccomp action: %s", word);
    return SCMP_ACT_ERRNO((uint16_t)number);
}

static scmp_filter_ctx new_filter(uint32_t default_action) {
    load_libseccomp();
    scmp_filter_ctx filter = libseccomp.init(default_action);
    // no_new_privs is set (or not) by sandbox_apply_last, as systemd decides it; not by libseccomp.
    if (filter == NULL || libseccomp.attr_set(filter, SCMP_FLTATR_CTL_NNP, 0) != 0) fail(EXIT_SECCOMP, "cannot make a seccomp filter");
    return filter;
}

static void add(scmp_filter_ctx filter, uint32_t result, const char *name, unsigned count, const struct scmp_arg_cmp *compare) {
    int number = libseccomp.resolve_name(name);
    if (number == __NR_SCMP_ERROR || number < 0) return;  // not a call of this architecture
    int added = libseccomp.rule_add_array(filter, result, number, count, compare);
    if (added != 0) fail(EXIT_SECCOMP, "cannot filter %s: %s", name, strerror(-added));
}

static void load(scmp_filter_ctx filter) {
    int loaded = libseccomp.load(filter);
    if (loaded != 0) fail(EXIT_SECCOMP, "cannot load a seccomp filter: %s", strerror(-loaded));
    libseccomp.release(filter);
}

static void load_argument_filters(void) {
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    if (sandbox.restrict_namespaces) {
        static const uint64_t all[] = {CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWUTS};
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        // clone3 passes its flags in memory, out of a filter's sight: ENOSYS makes glibc use clone.
        add(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
        // As systemd: setns() is refused outright when no type is allowed, else for the types that
        // are not and for type 0 (any), which a filter cannot tell apart.
        uint64_t allowed = sandbox.allowed_namespaces;
        struct scmp_arg_cmp any_type = SCMP_A1(SCMP_CMP_EQ, 0);
        add(filter, eperm, "setns", allowed == 0 ? 0 : 1, allowed == 0 ? NULL : &any_type);
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
            if (allowed & all[i]) continue;
            struct scmp_arg_cmp flags = SCMP_A0(SCMP_CMP_MASKED_EQ, all[i], all[i]);
            add(filter, eperm, "unshare", 1, &flags);
            add(filter, eperm, "clone", 1, &flags);
            struct scmp_arg_cmp type = SCMP_A1(SCMP_CMP_MASKED_EQ, all[i], all[i]);
            if (allowed != 0) add(filter, eperm, "setns", 1, &type);
        }
        load(filter);
    }
    if (sandbox.lock_personality) {
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)(unsigned)personality(0xffffffff));
        add(filter, eperm, "personality", 1, &other);
        load(filter);
    }
    if (sandbox.restrict_realtime) {
        // As systemd: only SCHED_OTHER (0), SCHED_BATCH (3) and SCHED_IDLE (5), compared as given
        // (so with SCHED_RESET_ON_FORK too, which is above 5).
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        static const int denied[] = {SCHED_FIFO, SCHED_RR, 4};
        for (size_t i = 0; i < 3; i++) {
            struct scmp_arg_cmp policy = SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)denied[i]);
            add(filter, eperm, "sched_setscheduler", 1, &policy);
        }
        struct scmp_arg_cmp above = SCMP_A1(SCMP_CMP_GT, SCHED_IDLE);
        add(filter, eperm, "sched_setscheduler", 1, &above);
        load(filter);
    }
    if (sandbox.deny_write_execute) {
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        struct scmp_arg_cmp both = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC | PROT_WRITE);
        add(filter, eperm, "mmap", 1, &both);
        add(filter, eperm, "mmap2", 1, &both);
        struct scmp_arg_cmp exec = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC);
        add(filter, eperm, "mprotect", 1, &exec);
        add(filter, eperm, "pkey_mprotect", 1, &exec);
        struct scmp_arg_cmp shm = SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC);
        add(filter, eperm, "shmat", 1, &shm);
        load(filter);
    }
}

void sandbox_apply_last(void) {
    if (sandbox.ambient != 0) {
        uint64_t wanted = sandbox.ambient & (sandbox.bounding_set ? sandbox.bounding : ~0ULL);
        set_capabilities(wanted, wanted, wanted);
        for (unsigned long cap = 0; cap <= 63; cap++)
            if ((wanted & (1ULL << cap)) && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0)
                fail(EXIT_CAPABILITIES, "cannot raise ambient capability %lu: %s", cap, strerror(errno));
    }
    int filters = sandbox.filter_count > 0 || sandbox.restrict_namespaces || sandbox.lock_personality || sandbox.restrict_realtime
        || sandbox.deny_write_execute;
    // As systemd: a seccomp filter without CAP_SYS_ADMIN (a User= run) implies no_new_privs.
    int needs = sandbox.no_new_privileges || (filters && !(effective_capabilities() & (1ULL << CAP_SYS_ADMIN)));
    if (needs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(EXIT_NO_NEW_PRIVILEGES, "cannot set no_new_privs: %s", strerror(errno));
    load_argument_filters();
    // SystemCallFilter= and the call lists of the Protect…= keys, last: nothing of this program runs after them but execve.
    for (size_t i = 0; i < sandbox.filter_count; i++) {
        char *words = strdup(sandbox.filters[i]);
        char *first = words == NULL ? NULL : strchr(words, ':');
        char *second = first == NULL ? NULL : strchr(first + 1, ':');
        if (second == NULL) fail(2, "bad --seccomp: %s", sandbox.filters[i]);
        *first++ = '\0';
        *second++ = '\0';
        scmp_filter_ctx filter = new_filter(action(words));
        uint32_t result = action(first);
        for (char *name = strtok(second, ","); name != NULL; name = strtok(NULL, ",")) add(filter, result, name, 0, NULL);
        load(filter);
        free(words);
    }
}
