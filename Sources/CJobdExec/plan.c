// The exec plan's one parser (see include/plan.h). Two passes over the fields: the first checks the
// framing and counts the repeated fields, the second fills the plan, whose lists are allocated once.
#define _GNU_SOURCE
#include "plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exit.h"

struct cursor {
    const uint8_t *value;
    uint32_t length;
};

static int refuse(char *error, size_t size, int code, const char *format, ...) __attribute__((format(printf, 4, 5)));
static int refuse(char *error, size_t size, int code, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    if (size > 0) vsnprintf(error, size, format, arguments);
    va_end(arguments);
    return code;
}

static uint16_t u16(const uint8_t *bytes) { return (uint16_t)(bytes[0] | bytes[1] << 8); }
static uint32_t u32(const uint8_t *bytes) { return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24; }
static uint64_t u64(const uint8_t *bytes) { return (uint64_t)u32(bytes) | (uint64_t)u32(bytes + 4) << 32; }

static const char *tag_name(int tag) {
    switch (tag) {
    case EXEC_TAG_MODE: return "mode";
    case EXEC_TAG_CGROUP: return "cgroup";
    case EXEC_TAG_RLIMIT: return "rlimit";
    case EXEC_TAG_NICE: return "nice";
    case EXEC_TAG_IOPRIO: return "ioprio";
    case EXEC_TAG_SCHED: return "sched";
    case EXEC_TAG_UMASK: return "umask";
    case EXEC_TAG_OOM_SCORE_ADJUST: return "oom-score-adjust";
    case EXEC_TAG_GROUPS: return "groups";
    case EXEC_TAG_GID: return "gid";
    case EXEC_TAG_UID: return "uid";
    case EXEC_TAG_KEYRING: return "keyring";
    case EXEC_TAG_DIRECTORY: return "directory";
    case EXEC_TAG_FENCE: return "fence";
    case EXEC_TAG_ENVIRONMENT: return "environment";
    case EXEC_TAG_ARGUMENT: return "argument";
    case EXEC_TAG_READ_FILE: return "read-file";
    case EXEC_TAG_READ_LIMIT: return "read-limit";
    case EXEC_TAG_KEEP_STDIN: return "keep-stdin";
    case EXEC_TAG_MOUNT: return "mount";
    case EXEC_TAG_USER_PATHS: return "user-paths";
    case EXEC_TAG_PRIVATE_DEV: return "private-dev";
    case EXEC_TAG_PRIVATE_TMP: return "private-tmp";
    case EXEC_TAG_NOSUID_MOUNTS: return "nosuid-mounts";
    case EXEC_TAG_PRIVATE_NETWORK: return "private-network";
    case EXEC_TAG_NEW_UTS: return "new-uts";
    case EXEC_TAG_DEVICE_POLICY: return "device-policy";
    case EXEC_TAG_BOUNDING: return "bounding";
    case EXEC_TAG_AMBIENT: return "ambient";
    case EXEC_TAG_NO_NEW_PRIVILEGES: return "no-new-privileges";
    case EXEC_TAG_SECCOMP: return "seccomp";
    case EXEC_TAG_RESTRICT_NAMESPACES: return "restrict-namespaces";
    case EXEC_TAG_LOCK_PERSONALITY: return "lock-personality";
    case EXEC_TAG_RESTRICT_REALTIME: return "restrict-realtime";
    case EXEC_TAG_MEMORY_DENY_WRITE_EXECUTE: return "memory-deny-write-execute";
    case EXEC_TAG_RESTRICT_SUID_SGID: return "restrict-suid-sgid";
    default: return NULL;
    }
}

// The fixed size of a tag's value, 0 for a flag, -1 for a value of its own length.
static int fixed_size(int tag) {
    switch (tag) {
    case EXEC_TAG_KEYRING: case EXEC_TAG_KEEP_STDIN: case EXEC_TAG_USER_PATHS: case EXEC_TAG_PRIVATE_DEV: case EXEC_TAG_NOSUID_MOUNTS:
    case EXEC_TAG_PRIVATE_NETWORK: case EXEC_TAG_NEW_UTS: case EXEC_TAG_NO_NEW_PRIVILEGES: case EXEC_TAG_LOCK_PERSONALITY:
    case EXEC_TAG_RESTRICT_REALTIME: case EXEC_TAG_MEMORY_DENY_WRITE_EXECUTE: case EXEC_TAG_RESTRICT_SUID_SGID:
        return 0;
    case EXEC_TAG_MODE: case EXEC_TAG_NICE: case EXEC_TAG_IOPRIO: case EXEC_TAG_UMASK: case EXEC_TAG_GID: case EXEC_TAG_UID:
    case EXEC_TAG_DEVICE_POLICY:
        return 4;
    case EXEC_TAG_SCHED: case EXEC_TAG_READ_LIMIT: case EXEC_TAG_BOUNDING: case EXEC_TAG_AMBIENT: case EXEC_TAG_RESTRICT_NAMESPACES:
    case EXEC_TAG_OOM_SCORE_ADJUST:
        return 8;
    case EXEC_TAG_RLIMIT:
        return 20;
    default:
        return -1;
    }
}

static int repeated(int tag) {
    return tag == EXEC_TAG_CGROUP || tag == EXEC_TAG_RLIMIT || tag == EXEC_TAG_ENVIRONMENT || tag == EXEC_TAG_ARGUMENT
        || tag == EXEC_TAG_READ_FILE || tag == EXEC_TAG_MOUNT || tag == EXEC_TAG_SECCOMP;
}

// The strings at `bytes`: each ended by its NUL, none empty unless `empty` allows it. Their number,
// or -1 when the value is not that.
static long strings(const uint8_t *bytes, size_t length, int empty) {
    if (length == 0 || bytes[length - 1] != '\0') return -1;
    long count = 0;
    for (size_t start = 0, i = 0; i < length; i++) {
        if (bytes[i] != '\0') continue;
        if (i == start && !empty) return -1;
        count++;
        start = i + 1;
    }
    return count;
}

// One string that is a path: absolute, at most EXEC_PLAN_MAX_PATH bytes.
static int path_value(const uint8_t *bytes, size_t length) {
    return strings(bytes, length, 0) == 1 && bytes[0] == '/' && length - 1 <= EXEC_PLAN_MAX_PATH;
}

// The first pass: the header, each field's framing, and the counts of the repeated ones.
static int frame(const uint8_t *bytes, size_t count, size_t counts[64], char *error, size_t size) {
    if (count < EXEC_PLAN_HEADER_SIZE) return refuse(error, size, EXIT_EXEC, "the exec plan was cut short");
    if (memcmp(bytes, EXEC_PLAN_MAGIC, 4) != 0) return refuse(error, size, EXIT_USAGE, "not an exec plan (jobd-cgexec is started by jobd)");
    if (u16(bytes + 4) != EXEC_PLAN_VERSION)
        return refuse(error, size, EXIT_USAGE, "exec plan version %u, this jobd-cgexec reads version %d: install jobd and jobd-cgexec together",
                      u16(bytes + 4), EXEC_PLAN_VERSION);
    uint32_t declared = u32(bytes + 8);
    if (declared > EXEC_PLAN_MAX_SIZE) return refuse(error, size, EXIT_USAGE, "the exec plan is larger than %d bytes", EXEC_PLAN_MAX_SIZE);
    if (count - EXEC_PLAN_HEADER_SIZE < declared) return refuse(error, size, EXIT_EXEC, "the exec plan was cut short");
    if (count - EXEC_PLAN_HEADER_SIZE > declared) return refuse(error, size, EXIT_USAGE, "bytes after the exec plan");
    int seen[64] = {0};
    for (size_t at = EXEC_PLAN_HEADER_SIZE; at < count;) {
        if (count - at < 6) return refuse(error, size, EXIT_EXEC, "the exec plan was cut short");
        int tag = u16(bytes + at);
        uint32_t length = u32(bytes + at + 2);
        at += 6;
        const char *name = tag < 64 ? tag_name(tag) : NULL;
        if (name == NULL) return refuse(error, size, EXIT_USAGE, "unknown field %d in the exec plan", tag);
        if (length > count - at) return refuse(error, size, EXIT_EXEC, "the exec plan was cut short");
        int fixed = fixed_size(tag);
        if (fixed >= 0 && length != (uint32_t)fixed)
            return refuse(error, size, EXIT_USAGE, "the exec plan's %s is %u bytes, not %d", name, length, fixed);
        if (seen[tag]++ && !repeated(tag)) return refuse(error, size, EXIT_USAGE, "the exec plan has more than one %s", name);
        counts[tag]++;
        if (tag == EXEC_TAG_GROUPS) counts[tag] = length / 4;
        at += length;
    }
    return 0;
}

// A field of the process: its command, environment, credentials, attributes and cgroups.
static int take_process(struct exec_plan *plan, int tag, const uint8_t *value, uint32_t length, char *error, size_t size) {
    const char *text = (const char *)value;
    switch (tag) {
    case EXEC_TAG_MODE:
        plan->mode = (int)u32(value);
        if (plan->mode != EXEC_MODE_RUN && plan->mode != EXEC_MODE_READ) return refuse(error, size, EXIT_USAGE, "unknown mode %u", u32(value));
        return 0;
    case EXEC_TAG_CGROUP:
        if (!path_value(value, length)) return refuse(error, size, EXIT_USAGE, "bad cgroup in the exec plan");
        plan->cgroups[plan->cgroup_count++] = text;
        return 0;
    case EXEC_TAG_RLIMIT: {
        struct exec_rlimit limit = {u32(value), u64(value + 4), u64(value + 12)};
        if (limit.resource >= RLIM_NLIMITS) return refuse(error, size, EXIT_USAGE, "bad resource limit %u", limit.resource);
        plan->attributes.rlimits[plan->attributes.rlimit_count++] = limit;
        return 0;
    }
    case EXEC_TAG_NICE:
        plan->attributes.has_nice = 1;
        plan->attributes.nice = (int32_t)u32(value);
        if (plan->attributes.nice < -20 || plan->attributes.nice > 19) return refuse(error, size, EXIT_USAGE, "bad nice value: %d", plan->attributes.nice);
        return 0;
    case EXEC_TAG_IOPRIO: plan->attributes.has_ioprio = 1, plan->attributes.ioprio = u32(value); return 0;
    case EXEC_TAG_SCHED:
        plan->attributes.has_sched = 1, plan->attributes.sched_policy = u32(value), plan->attributes.sched_priority = u32(value + 4);
        return 0;
    case EXEC_TAG_UMASK:
        plan->attributes.has_umask = 1, plan->attributes.umask = u32(value);
        if (plan->attributes.umask > 0777) return refuse(error, size, EXIT_USAGE, "bad umask: %o", plan->attributes.umask);
        return 0;
    case EXEC_TAG_OOM_SCORE_ADJUST: {
        int64_t adjust = (int64_t)u64(value);
        if (adjust < -1000 || adjust > 1000) return refuse(error, size, EXIT_USAGE, "bad OOM score adjustment: %lld", (long long)adjust);
        plan->attributes.has_oom_score_adjust = 1, plan->attributes.oom_score_adjust = (int)adjust;
        return 0;
    }
    case EXEC_TAG_GROUPS:
        if (length % 4 != 0) return refuse(error, size, EXIT_GROUP, "bad group list in the exec plan");
        plan->credentials.has_groups = 1;
        for (size_t i = 0; i < length / 4; i++) plan->credentials.groups[plan->credentials.group_count++] = u32(value + 4 * i);
        return 0;
    case EXEC_TAG_GID:
        plan->credentials.has_gid = 1, plan->credentials.gid = u32(value);
        // (gid_t)-1 would mean "leave it unchanged" to setresgid: never a switch to make.
        if (plan->credentials.gid == (gid_t)-1) return refuse(error, size, EXIT_GROUP, "not a gid: %u", u32(value));
        return 0;
    case EXEC_TAG_UID:
        plan->credentials.has_uid = 1, plan->credentials.uid = u32(value);
        if (plan->credentials.uid == (uid_t)-1) return refuse(error, size, EXIT_USER, "not a uid: %u", u32(value));
        return 0;
    case EXEC_TAG_KEYRING: plan->keyring = 1; return 0;
    case EXEC_TAG_DIRECTORY:
        if (length < 1 || value[0] > 1 || !path_value(value + 1, length - 1)) return refuse(error, size, EXIT_USAGE, "bad working directory in the exec plan");
        plan->directory_optional = value[0], plan->directory = text + 1;
        return 0;
    case EXEC_TAG_FENCE:
        if (length < 8 || !path_value(value + 8, length - 8)) return refuse(error, size, EXIT_USAGE, "bad fence in the exec plan");
        plan->fence_stop = u64(value), plan->fence = text + 8;
        return 0;
    case EXEC_TAG_ENVIRONMENT:
        if (strings(value, length, 0) != 1 || memchr(value, '=', length) == NULL || value[0] == '=')
            return refuse(error, size, EXIT_USAGE, "bad environment entry in the exec plan");
        plan->environment[plan->environment_count++] = (char *)text;
        return 0;
    case EXEC_TAG_ARGUMENT:
        if (strings(value, length, 1) != 1) return refuse(error, size, EXIT_USAGE, "bad argument in the exec plan");
        plan->argv[plan->argc++] = (char *)text;
        return 0;
    case EXEC_TAG_READ_FILE:
        if (strings(value, length, 0) != 1 || length - 1 > EXEC_PLAN_MAX_PATH) return refuse(error, size, EXIT_USAGE, "bad file to read in the exec plan");
        plan->read_files[plan->read_file_count++] = text;
        return 0;
    case EXEC_TAG_READ_LIMIT: plan->read_limit = u64(value); return 0;
    case EXEC_TAG_KEEP_STDIN: plan->keep_stdin = 1; return 0;
    default: return -1;
    }
}

static int action_value(int32_t action) {
    return action == EXEC_SECCOMP_ALLOW || action == EXEC_SECCOMP_KILL || (action >= 1 && action <= 4095);
}

// A field of the sandbox (systemd's sandboxing keys).
static int take_sandbox(struct exec_sandbox *sandbox, int tag, const uint8_t *value, uint32_t length, char *error, size_t size) {
    const char *text = (const char *)value;
    switch (tag) {
    case EXEC_TAG_MOUNT: {
        if (length < 2 || value[0] > EXEC_MOUNT_KEEP || value[1] > 1 || !path_value(value + 2, length - 2))
            return refuse(error, size, EXIT_USAGE, "bad mount in the exec plan");
        sandbox->mounts[sandbox->mount_count++] = (struct exec_mount){value[0], value[1], text + 2};
        return 0;
    }
    case EXEC_TAG_USER_PATHS: sandbox->user_paths = 1; return 0;
    case EXEC_TAG_PRIVATE_DEV: sandbox->private_dev = 1; return 0;
    case EXEC_TAG_PRIVATE_TMP: {
        size_t first = strnlen(text, length) + 1;
        if (strings(value, length, 0) != 2 || !path_value(value, first) || !path_value(value + first, length - first))
            return refuse(error, size, EXIT_USAGE, "bad private /tmp in the exec plan");
        sandbox->private_tmp = text, sandbox->private_var_tmp = text + first;
        return 0;
    }
    case EXEC_TAG_NOSUID_MOUNTS: sandbox->nosuid = 1; return 0;
    case EXEC_TAG_PRIVATE_NETWORK: sandbox->private_network = 1; return 0;
    case EXEC_TAG_NEW_UTS: sandbox->new_uts = 1; return 0;
    case EXEC_TAG_DEVICE_POLICY:
        sandbox->device_policy = (int)u32(value);
        if (sandbox->device_policy != EXEC_DEVICES_CLOSED && sandbox->device_policy != EXEC_DEVICES_CLOCK)
            return refuse(error, size, EXIT_USAGE, "unknown device policy %u", u32(value));
        return 0;
    case EXEC_TAG_BOUNDING: sandbox->has_bounding = 1, sandbox->bounding = u64(value); return 0;
    case EXEC_TAG_AMBIENT: sandbox->ambient = u64(value); return 0;
    case EXEC_TAG_NO_NEW_PRIVILEGES: sandbox->no_new_privileges = 1; return 0;
    case EXEC_TAG_SECCOMP: {
        struct exec_filter *filter = &sandbox->filters[sandbox->filter_count];
        long names = length < 8 ? -1 : strings(value + 8, length - 8, 0);
        filter->default_action = (int32_t)u32(value), filter->action = (int32_t)u32(value + 4);
        if (names < 1 || !action_value(filter->default_action) || !action_value(filter->action))
            return refuse(error, size, EXIT_USAGE, "bad seccomp filter in the exec plan");
        filter->names = calloc((size_t)names, sizeof *filter->names);
        if (filter->names == NULL) return refuse(error, size, EXIT_EXEC, "out of memory");
        sandbox->filter_count++;
        for (const char *name = text + 8; name < text + length; name += strlen(name) + 1) filter->names[filter->name_count++] = name;
        return 0;
    }
    case EXEC_TAG_RESTRICT_NAMESPACES: sandbox->has_restrict_namespaces = 1, sandbox->allowed_namespaces = u64(value); return 0;
    case EXEC_TAG_LOCK_PERSONALITY: sandbox->lock_personality = 1; return 0;
    case EXEC_TAG_RESTRICT_REALTIME: sandbox->restrict_realtime = 1; return 0;
    case EXEC_TAG_MEMORY_DENY_WRITE_EXECUTE: sandbox->deny_write_execute = 1; return 0;
    case EXEC_TAG_RESTRICT_SUID_SGID: sandbox->restrict_suid_sgid = 1; return 0;
    default: return -1;
    }
}

// What no single field can say: the fields a mode needs, and those that need one another.
static int check_whole(const struct exec_plan *plan, char *error, size_t size) {
    if (plan->mode == EXEC_MODE_READ) {
        if (plan->argc > 0 || plan->read_file_count == 0) return refuse(error, size, EXIT_USAGE, "a plan that reads files has files and no command");
    } else if (plan->argc == 0 || plan->argv[0][0] == '\0') return refuse(error, size, EXIT_USAGE, "the exec plan has no command");
    else if (plan->read_file_count > 0) return refuse(error, size, EXIT_USAGE, "a plan that runs a command reads no files");
    if (plan->sandbox.user_paths && !(plan->credentials.has_uid && plan->credentials.has_gid))
        return refuse(error, size, EXIT_USAGE, "user paths need the run's uid and gid");
    if (plan->sandbox.device_policy != EXEC_DEVICES_NONE && plan->cgroup_count == 0)
        return refuse(error, size, EXIT_CGROUP, "a device policy needs the run's cgroup v2");
    return 0;
}

// The lists of `plan`, allocated for the counts the first pass found; a bound exceeded is refused.
static int allocate(struct exec_plan *plan, const size_t counts[64], char *error, size_t size) {
    static const struct { int tag; size_t bound; } bounds[] = {
        {EXEC_TAG_CGROUP, EXEC_PLAN_MAX_CGROUPS}, {EXEC_TAG_RLIMIT, EXEC_PLAN_MAX_RLIMITS}, {EXEC_TAG_MOUNT, EXEC_PLAN_MAX_MOUNTS},
        {EXEC_TAG_SECCOMP, EXEC_PLAN_MAX_FILTERS}, {EXEC_TAG_GROUPS, EXEC_PLAN_MAX_GROUPS},
    };
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++)
        if (counts[bounds[i].tag] > bounds[i].bound)
            return refuse(error, size, bounds[i].tag == EXEC_TAG_GROUPS ? EXIT_GROUP : EXIT_USAGE, "the exec plan has more than %zu %s entries",
                          bounds[i].bound, tag_name(bounds[i].tag));
    plan->cgroups = calloc(counts[EXEC_TAG_CGROUP] + 1, sizeof *plan->cgroups);
    plan->attributes.rlimits = calloc(counts[EXEC_TAG_RLIMIT] + 1, sizeof *plan->attributes.rlimits);
    plan->credentials.groups = calloc(counts[EXEC_TAG_GROUPS] + 1, sizeof *plan->credentials.groups);
    plan->environment = calloc(counts[EXEC_TAG_ENVIRONMENT] + 1, sizeof *plan->environment);
    plan->argv = calloc(counts[EXEC_TAG_ARGUMENT] + 1, sizeof *plan->argv);
    plan->read_files = calloc(counts[EXEC_TAG_READ_FILE] + 1, sizeof *plan->read_files);
    plan->sandbox.mounts = calloc(counts[EXEC_TAG_MOUNT] + 1, sizeof *plan->sandbox.mounts);
    plan->sandbox.filters = calloc(counts[EXEC_TAG_SECCOMP] + 1, sizeof *plan->sandbox.filters);
    if (plan->cgroups == NULL || plan->attributes.rlimits == NULL || plan->credentials.groups == NULL || plan->environment == NULL
        || plan->argv == NULL || plan->read_files == NULL || plan->sandbox.mounts == NULL || plan->sandbox.filters == NULL)
        return refuse(error, size, EXIT_EXEC, "out of memory");
    return 0;
}

int exec_plan_key_flag(const struct exec_plan *plan, int tag) {
    switch (tag) {
    case EXEC_TAG_PRIVATE_NETWORK: return plan->sandbox.private_network;
    case EXEC_TAG_LOCK_PERSONALITY: return plan->sandbox.lock_personality;
    case EXEC_TAG_RESTRICT_REALTIME: return plan->sandbox.restrict_realtime;
    case EXEC_TAG_MEMORY_DENY_WRITE_EXECUTE: return plan->sandbox.deny_write_execute;
    case EXEC_TAG_RESTRICT_SUID_SGID: return plan->sandbox.restrict_suid_sgid;
    default: return -1;
    }
}

int exec_plan_key_number(const struct exec_plan *plan, int tag, int64_t *value) {
    switch (tag) {
    case EXEC_TAG_OOM_SCORE_ADJUST: *value = plan->attributes.oom_score_adjust; return plan->attributes.has_oom_score_adjust;
    default: return -1;
    }
}

void exec_plan_release(struct exec_plan *plan) {
    for (size_t i = 0; plan->sandbox.filters != NULL && i < plan->sandbox.filter_count; i++) free(plan->sandbox.filters[i].names);
    free(plan->cgroups);
    free(plan->attributes.rlimits);
    free(plan->credentials.groups);
    free(plan->environment);
    free(plan->argv);
    free(plan->read_files);
    free(plan->sandbox.mounts);
    free(plan->sandbox.filters);
    free(plan->bytes);
    memset(plan, 0, sizeof *plan);
}

int exec_plan_parse(const uint8_t *bytes, size_t count, struct exec_plan *plan, char *error, size_t error_size) {
    memset(plan, 0, sizeof *plan);
    plan->fence_stop = EXEC_UNLIMITED;
    size_t counts[64] = {0};
    int status = frame(bytes, count, counts, error, error_size);
    if (status != 0) return status;
    plan->bytes = malloc(count);
    status = plan->bytes == NULL ? refuse(error, error_size, EXIT_EXEC, "out of memory") : allocate(plan, counts, error, error_size);
    if (status == 0) memcpy(plan->bytes, bytes, count);
    for (size_t at = EXEC_PLAN_HEADER_SIZE; status == 0 && at < count;) {
        int tag = u16(plan->bytes + at);
        uint32_t length = u32(plan->bytes + at + 2);
        const uint8_t *value = plan->bytes + at + 6;
        at += 6 + length;
        status = take_process(plan, tag, value, length, error, error_size);
        if (status < 0) status = take_sandbox(&plan->sandbox, tag, value, length, error, error_size);
    }
    if (status == 0) status = check_whole(plan, error, error_size);
    if (status != 0) exec_plan_release(plan);
    return status;
}

// Reads exactly `count` bytes: 0, or -1 with errno (0 at an early end of file).
static int read_exactly(int fd, uint8_t *bytes, size_t count) {
    for (size_t done = 0; done < count;) {
        ssize_t got = read(fd, bytes + done, count - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got == 0) errno = 0;
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

int exec_plan_read(int fd, struct exec_plan *plan, char *error, size_t error_size) {
    uint8_t header[EXEC_PLAN_HEADER_SIZE];
    if (read_exactly(fd, header, sizeof header) != 0) {
        if (errno == 0) return refuse(error, error_size, EXIT_EXEC, "the exec plan was cut short");
        return refuse(error, error_size, EXIT_EXEC, "cannot read the exec plan: %s", strerror(errno));
    }
    // The header alone says whether the rest is worth reading: a wrong version is refused at once.
    size_t counts[64] = {0};
    int status = frame(header, sizeof header, counts, error, error_size);
    if (status != 0 && status != EXIT_EXEC) return status;
    uint32_t declared = u32(header + 8);
    uint8_t *bytes = malloc(sizeof header + declared);
    if (bytes == NULL) return refuse(error, error_size, EXIT_EXEC, "out of memory");
    memcpy(bytes, header, sizeof header);
    if (read_exactly(fd, bytes + sizeof header, declared) != 0) {
        int saved = errno;
        free(bytes);
        if (saved == 0) return refuse(error, error_size, EXIT_EXEC, "the exec plan was cut short");
        return refuse(error, error_size, EXIT_EXEC, "cannot read the exec plan: %s", strerror(saved));
    }
    status = exec_plan_parse(bytes, sizeof header + declared, plan, error, error_size);
    free(bytes);
    return status;
}
