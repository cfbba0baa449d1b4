// The exec plan: everything jobd tells jobd-cgexec about one process, in one versioned message on
// the trampoline's stdin (Swift's ExecPlan writes it, exec_plan_parse reads it; docs/internals.md).
//
//   header  "JDXP", version (u16), 0 (u16), the length of the fields that follow (u32)
//   fields  tag (u16), length (u32), value; repeated where the struct below has a list
//
// Numbers are little-endian. A string's value ends with its NUL and holds no other. A flag has no
// value. An unknown tag, a repeated single field, a value of the wrong size or out of its range is
// refused before anything is done: a plan is applied whole or not at all.
#ifndef JOBD_EXEC_PLAN_H
#define JOBD_EXEC_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EXEC_PLAN_MAGIC "JDXP"
enum {
    EXEC_PLAN_VERSION = 1,
    EXEC_PLAN_HEADER_SIZE = 12,
    EXEC_PLAN_MAX_SIZE = 64 << 20,  // the environment's bound before plans (64 MiB)
    EXEC_PLAN_MAX_PATH = 4095,      // a path's bytes, without its NUL
    EXEC_PLAN_MAX_CGROUPS = 8,      // cgroup v2 and its v1 twins (pids, memory, cpu, blkio)
    EXEC_PLAN_MAX_RLIMITS = 16,
    EXEC_PLAN_MAX_MOUNTS = 64,
    EXEC_PLAN_MAX_FILTERS = 16,
    EXEC_PLAN_MAX_GROUPS = 65536,   // NGROUPS_MAX
};

// The tags. A new field is a new tag, which an older jobd-cgexec refuses (a plan is applied whole
// or not at all); the version changes when an existing field's meaning does.
enum {
    EXEC_TAG_MODE = 1,             // u32: EXEC_MODE_*
    EXEC_TAG_CGROUP = 2,           // string: a cgroup directory to enter; repeated
    EXEC_TAG_RLIMIT = 3,           // u32 resource (RLIMIT_*), u64 soft, u64 hard (EXEC_UNLIMITED: infinity); repeated
    EXEC_TAG_NICE = 4,             // i32, -20...19
    EXEC_TAG_IOPRIO = 5,           // u32, the kernel's IOPRIO_PRIO_VALUE
    EXEC_TAG_SCHED = 6,            // u32 policy (SCHED_*), u32 priority
    EXEC_TAG_UMASK = 7,            // u32, at most 0777
    EXEC_TAG_GROUPS = 8,           // u32 per supplementary group (none: jobd's are kept)
    EXEC_TAG_GID = 9,              // u32
    EXEC_TAG_UID = 10,             // u32
    EXEC_TAG_KEYRING = 11,         // flag: a session keyring of the run's own
    EXEC_TAG_DIRECTORY = 12,       // u8 optional (a missing one means /), string
    EXEC_TAG_FENCE = 13,           // u64 microseconds from SIGTERM to SIGKILL (EXEC_UNLIMITED: never), string file
    EXEC_TAG_ENVIRONMENT = 14,     // string NAME=value; repeated
    EXEC_TAG_ARGUMENT = 15,        // string; repeated, the command first
    EXEC_TAG_READ_FILE = 16,       // string; repeated (EXEC_MODE_READ)
    EXEC_TAG_READ_LIMIT = 17,      // u64 bytes (EXEC_MODE_READ)
    EXEC_TAG_KEEP_STDIN = 18,      // flag: the command reads what follows the plan on stdin (mail)
    EXEC_TAG_OOM_SCORE_ADJUST = 19, // i64, -1000...1000
    EXEC_TAG_MOUNT = 32,           // u8 EXEC_MOUNT_*, u8 optional, string path; repeated, parents first
    EXEC_TAG_USER_PATHS = 33,      // flag: the mount paths are looked up with the run's credentials
    EXEC_TAG_PRIVATE_DEV = 34,     // flag
    EXEC_TAG_PRIVATE_TMP = 35,     // string /tmp's directory, string /var/tmp's
    EXEC_TAG_NOSUID_MOUNTS = 36,   // flag
    EXEC_TAG_PRIVATE_NETWORK = 37, // flag
    EXEC_TAG_NEW_UTS = 38,         // flag
    EXEC_TAG_DEVICE_POLICY = 39,   // u32 EXEC_DEVICES_*
    EXEC_TAG_BOUNDING = 40,        // u64 capability mask kept in the bounding set
    EXEC_TAG_AMBIENT = 41,         // u64 capability mask
    EXEC_TAG_NO_NEW_PRIVILEGES = 42, // flag
    EXEC_TAG_SECCOMP = 43,         // i32 default action, i32 action of the names, then strings; repeated
    EXEC_TAG_RESTRICT_NAMESPACES = 44, // u64 CLONE_NEW* mask allowed
    EXEC_TAG_LOCK_PERSONALITY = 45,    // flag
    EXEC_TAG_RESTRICT_REALTIME = 46,   // flag
    EXEC_TAG_MEMORY_DENY_WRITE_EXECUTE = 47, // flag
    EXEC_TAG_RESTRICT_SUID_SGID = 48,  // flag
};

enum { EXEC_MODE_RUN = 0, EXEC_MODE_READ = 1 };
enum { EXEC_MOUNT_RO = 0, EXEC_MOUNT_RW = 1, EXEC_MOUNT_INACCESSIBLE = 2, EXEC_MOUNT_TMPFS = 3, EXEC_MOUNT_KEEP = 4 };
enum { EXEC_DEVICES_NONE = 0, EXEC_DEVICES_CLOSED = 1, EXEC_DEVICES_CLOCK = 2 };
// A seccomp action: allow, kill the process (SIGSYS), or 1...4095, an errno.
enum { EXEC_SECCOMP_ALLOW = 0, EXEC_SECCOMP_KILL = -1 };
#define EXEC_UNLIMITED UINT64_MAX

struct exec_rlimit {
    uint32_t resource;
    uint64_t soft, hard;
};

struct exec_attributes {
    struct exec_rlimit *rlimits;
    size_t rlimit_count;
    int has_nice, nice;
    int has_ioprio;
    uint32_t ioprio;
    int has_sched;
    uint32_t sched_policy, sched_priority;
    int has_umask;
    uint32_t umask;
    int has_oom_score_adjust, oom_score_adjust;
};

struct exec_credentials {
    int has_groups;  // 0: jobd's supplementary groups are kept
    size_t group_count;
    gid_t *groups;
    int has_gid, has_uid;
    gid_t gid;
    uid_t uid;
};

struct exec_mount {
    int mode, optional;
    const char *path;
};

struct exec_filter {
    int32_t default_action, action;
    size_t name_count;
    const char **names;
};

struct exec_sandbox {
    struct exec_mount *mounts;
    size_t mount_count;
    int user_paths, private_dev, nosuid, private_network, new_uts, no_new_privileges;
    const char *private_tmp, *private_var_tmp;  // NULL: no PrivateTmp=
    int device_policy;
    int has_bounding;
    uint64_t bounding, ambient;
    struct exec_filter *filters;
    size_t filter_count;
    int has_restrict_namespaces;
    uint64_t allowed_namespaces;
    int lock_personality, restrict_realtime, deny_write_execute, restrict_suid_sgid;
};

struct exec_plan {
    int mode;
    const char **cgroups;
    size_t cgroup_count;
    struct exec_attributes attributes;
    struct exec_sandbox sandbox;
    int keyring;
    const char *fence;  // NULL: not a fleet run
    uint64_t fence_stop;
    struct exec_credentials credentials;
    const char *directory;  // NULL: the trampoline's own (jobd's)
    int directory_optional;
    char **environment;  // ends with NULL
    size_t environment_count;
    char **argv;  // ends with NULL
    size_t argc;
    const char **read_files;
    size_t read_file_count;
    uint64_t read_limit;
    int keep_stdin;
    uint8_t *bytes;  // the plan's own copy, which the strings point into
};

// Parses `count` bytes into `plan`: 0, or the exit status for the failure with its reason in
// `error` (and nothing to release). Never exits: tests call it on what Swift's encoder wrote.
int exec_plan_parse(const uint8_t *bytes, size_t count, struct exec_plan *plan, char *error, size_t error_size);
// Frees what a parsed plan holds.
void exec_plan_release(struct exec_plan *plan);
// Whether `plan` sets `tag`, a flag of a key jobd-cgexec takes as the job file gives it (Swift's
// key table, JobKey.planFlag): 1 or 0, or -1 for a tag that is no such flag.
int exec_plan_key_flag(const struct exec_plan *plan, int tag);
// Whether `plan` sets `tag`, a number of a key jobd-cgexec takes as the job file gives it (Swift's
// key table, JobKey.planNumber), with the number in `value`: 1 or 0, or -1 for no such tag.
int exec_plan_key_number(const struct exec_plan *plan, int tag, int64_t *value);
// Reads one plan from `fd`, exactly its bytes and no more (what follows is the command's, with
// EXEC_TAG_KEEP_STDIN), and parses it: 0, or the exit status with the reason in `error`.
int exec_plan_read(int fd, struct exec_plan *plan, char *error, size_t error_size);

#endif
