// The run's mount namespace (ProtectSystem=, ProtectHome=, ReadOnlyPaths=…, PrivateDevices=,
// PrivateTmp=), made as root before the switch of credentials: each entry of the plan, in its order
// (parents first), with MODE ro, rw, inaccessible, tmpfs (read-only, ProtectHome=tmpfs) or keep (a path
// the read-only remounts above it leave alone), an optional one allowed to be missing; with user paths
// (a user's own job), looked up with the run's credentials: one its user cannot reach counts as
// missing, whether it exists or not. Mounts are made with the kernel's mount API (mount_setattr: one
// mount's read-only flag, leaving nosuid, nodev and noexec as they are).
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "exit.h"

// An entry as it is resolved: its canonical path, and whether it was missing.
struct entry {
    int mode;
    int optional, missing;
    char path[4096];
};
static struct entry entries[EXEC_PLAN_MAX_MOUNTS];
static size_t entry_count;

static void must(int result, int code, const char *what, const char *path) {
    if (result != 0) exec_fail(code, "%s %s: %s", what, path, strerror(errno));
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
    if (file == NULL) exec_fail(EXIT_NAMESPACE, "cannot read /proc/self/mountinfo: %s", strerror(errno));
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
    if (points == NULL) exec_fail(EXIT_NAMESPACE, "out of memory");
    points[count] = NULL;
    return points;
}

static void set_read_only(const char *path) {
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
    if (mount_setattr(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, &attr, sizeof attr) != 0 && errno != ENOENT)
        exec_fail(EXIT_NAMESPACE, "cannot make %s read-only: %s", path, strerror(errno));
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
        if (mkdtemp(staging) == NULL) exec_fail(EXIT_NAMESPACE, "cannot make %s: %s", staging, strerror(errno));
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
    if (mkdtemp(dev) == NULL) exec_fail(EXIT_NAMESPACE, "cannot make %s: %s", dev, strerror(errno));
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
        if (mount(path, target, NULL, MS_BIND, NULL) != 0 && i < 2) exec_fail(EXIT_NAMESPACE, "cannot bind %s: %s", path, strerror(errno));
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
static int open_entry(const char *path, const struct exec_credentials *as) {
    if (as == NULL) return open(path, O_PATH | O_CLOEXEC);
    static gid_t own[NGROUPS_MAX];
    int own_count = getgroups(NGROUPS_MAX, own);
    if (own_count < 0 || (as->has_groups && setgroups(as->group_count, as->groups) != 0))
        exec_fail(EXIT_NAMESPACE, "cannot take the job's groups: %s", strerror(errno));
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
    if ((uid_t)setfsuid(old_uid) != old_uid || setgroups((size_t)own_count, own) != 0) exec_fail(EXIT_NAMESPACE, "cannot take back root's credentials");
    errno = error;
    return fd;
}

// Resolves `entry` into a descriptor and its canonical path; 0 when it is missing (and optional).
// As the user, every failure is one outcome with one message: a path the user cannot reach must
// tell nothing of whether it exists (issue 37: root's lookup was an existence oracle).
static int resolve_entry(struct entry *entry, const struct exec_credentials *as) {
    int fd = open_entry(entry->path, as);
    if (fd < 0) {
        if (as != NULL && !entry->optional) exec_fail(EXIT_NAMESPACE, "%s: no such file or directory, or not accessible to the job's user", entry->path);
        if (as == NULL && (errno != ENOENT || !entry->optional)) exec_fail(EXIT_NAMESPACE, "%s: %s", entry->path, strerror(errno));
        entry->missing = 1;
        return -1;
    }
    char link[64], resolved[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, resolved, sizeof resolved - 1);
    if (length < 0) exec_fail(EXIT_NAMESPACE, "cannot resolve %s: %s", entry->path, strerror(errno));
    resolved[length] = '\0';
    snprintf(entry->path, sizeof entry->path, "%s", resolved);
    return fd;
}

static void mount_entries(const struct exec_credentials *as, int nosuid) {
    for (size_t i = 0; i < entry_count; i++) {
        struct entry *entry = &entries[i];
        // Each is resolved just before it is mounted on, and mounted on through its descriptor:
        // nothing swapped in between (a link in a user's directory) can redirect root's mount.
        int fd = resolve_entry(entry, as);
        if (fd < 0) continue;
        char target[64];
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
        if (entry->mode == EXEC_MOUNT_TMPFS) {
            must(mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_STRICTATIME | MS_RDONLY, "mode=0755"), EXIT_NAMESPACE, "cannot mount a tmpfs on", entry->path);
        } else if (entry->mode == EXEC_MOUNT_INACCESSIBLE) {
            struct stat status;
            must(fstat(fd, &status), EXIT_NAMESPACE, "cannot look at", entry->path);
            // As systemd, an optional ("-") entry that cannot be mounted on because it is gone is
            // left out: an nspawn container's /proc/kmsg is a bind of a deleted FIFO, not the kernel's log.
            if (mount(inaccessible_node(status.st_mode & S_IFMT), target, NULL, MS_BIND, NULL) != 0) {
                if (errno != ENOENT || !entry->optional) exec_fail(EXIT_NAMESPACE, "cannot make inaccessible %s: %s", entry->path, strerror(errno));
            }
        } else if (entry->mode != EXEC_MOUNT_KEEP && !is_mount_root(fd)) {
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
    for (size_t i = 0; i < entry_count; i++) {
        const struct entry *entry = &entries[i];
        if (entry->missing || entry->mode == EXEC_MOUNT_RW || entry->mode == EXEC_MOUNT_KEEP) continue;
        for (char **point = points; *point != NULL; point++) {
            if (!under(*point, entry->path)) continue;
            int deeper = 0;
            for (size_t j = 0; j < entry_count && !deeper; j++)
                deeper = j != i && !entries[j].missing && strcmp(entries[j].path, entry->path) != 0
                    && under(entries[j].path, entry->path) && under(*point, entries[j].path);
            if (!deeper) set_read_only(*point);
        }
    }
    if (nosuid) {
        struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};
        must(mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof attr), EXIT_NAMESPACE, "cannot make nosuid", "/");
    }
    for (char **point = points; *point != NULL; point++) free(*point);
    free(points);
}


void sandbox_mount_namespace(const struct exec_sandbox *sandbox, const struct exec_credentials *as) {
    entry_count = 0;
    for (size_t i = 0; i < sandbox->mount_count && i < EXEC_PLAN_MAX_MOUNTS; i++) {
        struct entry *entry = &entries[entry_count++];
        entry->mode = sandbox->mounts[i].mode;
        entry->optional = sandbox->mounts[i].optional;
        entry->missing = 0;
        snprintf(entry->path, sizeof entry->path, "%s", sandbox->mounts[i].path);
    }
    // Mounts of the host still reach the run; the run's never reach the host.
    must(mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL), EXIT_NAMESPACE, "cannot make the mounts private:", "/");
    if (sandbox->private_dev) mount_private_dev();
    if (sandbox->private_tmp != NULL) {
        // Both held open first: the /var/tmp one may be under /tmp, which the first bind hides.
        int tmp_fd = open(sandbox->private_tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int var_fd = open(sandbox->private_var_tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        char tmp_source[64], var_source[64];
        snprintf(tmp_source, sizeof tmp_source, "/proc/self/fd/%d", tmp_fd);
        snprintf(var_source, sizeof var_source, "/proc/self/fd/%d", var_fd);
        if (tmp_fd < 0 || var_fd < 0)
            exec_fail(EXIT_NAMESPACE, "cannot open the private /tmp %s:%s: %s", sandbox->private_tmp, sandbox->private_var_tmp, strerror(errno));
        must(mount(tmp_source, "/tmp", NULL, MS_BIND | MS_REC, NULL), EXIT_NAMESPACE, "cannot bind the private /tmp", sandbox->private_tmp);
        must(mount(var_source, "/var/tmp", NULL, MS_BIND | MS_REC, NULL), EXIT_NAMESPACE, "cannot bind the private /var/tmp", sandbox->private_var_tmp);
        close(tmp_fd);
        close(var_fd);
    }
    mount_entries(sandbox->user_paths ? as : NULL, sandbox->nosuid);
}
