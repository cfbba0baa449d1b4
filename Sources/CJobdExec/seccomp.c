// The seccomp filters of SystemCallFilter=, the Protect…= keys' call lists, RestrictNamespaces=,
// LockPersonality=, RestrictRealtime=, MemoryDenyWriteExecute= and RestrictSUIDSGID=, made with libseccomp as systemd
// makes them, loaded (dlopen) only by a run that has one: a run without one pays nothing for it.
#define _GNU_SOURCE
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/shm.h>
#include <sys/stat.h>

#include "exit.h"

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
    if (library == NULL) exec_fail(EXIT_SECCOMP, "cannot load libseccomp.so.2 (Debian's libseccomp2): %s", dlerror());
    void *symbols[6] = {
        dlsym(library, "seccomp_init"), dlsym(library, "seccomp_attr_set"), dlsym(library, "seccomp_syscall_resolve_name"),
        dlsym(library, "seccomp_rule_add_array"), dlsym(library, "seccomp_load"), dlsym(library, "seccomp_release"),
    };
    for (size_t i = 0; i < 6; i++)
        if (symbols[i] == NULL) exec_fail(EXIT_SECCOMP, "libseccomp.so.2 lacks a function jobd-cgexec needs");
    libseccomp.init = (scmp_filter_ctx (*)(uint32_t))symbols[0];
    libseccomp.attr_set = (int (*)(scmp_filter_ctx, enum scmp_filter_attr, uint32_t))symbols[1];
    libseccomp.resolve_name = (int (*)(const char *))symbols[2];
    libseccomp.rule_add_array = (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *))symbols[3];
    libseccomp.load = (int (*)(const scmp_filter_ctx))symbols[4];
    libseccomp.release = (void (*)(scmp_filter_ctx))symbols[5];
}

// The plan checked the action (EXEC_SECCOMP_ALLOW, EXEC_SECCOMP_KILL or an errno).
static uint32_t action(int32_t value) {
    if (value == EXEC_SECCOMP_ALLOW) return SCMP_ACT_ALLOW;
    if (value == EXEC_SECCOMP_KILL) return SCMP_ACT_KILL_PROCESS;
    return SCMP_ACT_ERRNO((uint16_t)value);
}

static scmp_filter_ctx new_filter(uint32_t default_action) {
    load_libseccomp();
    scmp_filter_ctx filter = libseccomp.init(default_action);
    // no_new_privs is set (or not) by sandbox_apply_last, as systemd decides it; not by libseccomp.
    if (filter == NULL || libseccomp.attr_set(filter, SCMP_FLTATR_CTL_NNP, 0) != 0) exec_fail(EXIT_SECCOMP, "cannot make a seccomp filter");
    return filter;
}

static void add(scmp_filter_ctx filter, uint32_t result, const char *name, unsigned count, const struct scmp_arg_cmp *compare) {
    int number = libseccomp.resolve_name(name);
    if (number == __NR_SCMP_ERROR || number < 0) return;  // not a call of this architecture
    int added = libseccomp.rule_add_array(filter, result, number, count, compare);
    if (added != 0) exec_fail(EXIT_SECCOMP, "cannot filter %s: %s", name, strerror(-added));
}

static void load(scmp_filter_ctx filter) {
    int loaded = libseccomp.load(filter);
    if (loaded != 0) exec_fail(EXIT_SECCOMP, "cannot load a seccomp filter: %s", strerror(-loaded));
    libseccomp.release(filter);
}

// RestrictSUIDSGID=: as systemd's filter, every call that sets a file's mode fails with EPERM when
// the mode has `bit` (S_ISUID or S_ISGID): chmod, fchmod, fchmodat (and fchmodat2 where libseccomp
// knows it), mkdir, mkdirat, mknod, mknodat, creat, and open and openat that create a file
// (O_CREAT, or O_TMPFILE).
static void restrict_mode_bit(scmp_filter_ctx filter, uint32_t result, scmp_datum_t bit) {
    static const struct { const char *name; unsigned mode; } plain[] = {
        {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"mkdir", 1}, {"mkdirat", 2}, {"mknod", 1}, {"mknodat", 2}, {"creat", 1},
    };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        struct scmp_arg_cmp mode = {plain[i].mode, SCMP_CMP_MASKED_EQ, bit, bit};
        add(filter, result, plain[i].name, 1, &mode);
    }
    static const scmp_datum_t creating[] = {O_CREAT, O_TMPFILE};
    for (size_t i = 0; i < 2; i++) {
        struct scmp_arg_cmp open[] = {SCMP_A1(SCMP_CMP_MASKED_EQ, creating[i], creating[i]), SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit)};
        add(filter, result, "open", 2, open);
        struct scmp_arg_cmp openat[] = {SCMP_A2(SCMP_CMP_MASKED_EQ, creating[i], creating[i]), SCMP_A3(SCMP_CMP_MASKED_EQ, bit, bit)};
        add(filter, result, "openat", 2, openat);
    }
}

static void load_argument_filters(const struct exec_sandbox *sandbox) {
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    if (sandbox->has_restrict_namespaces) {
        static const uint64_t all[] = {CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWUTS};
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        // clone3 passes its flags in memory, out of a filter's sight: ENOSYS makes glibc use clone.
        add(filter, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
        // As systemd: setns() is refused outright when no type is allowed, else for the types that
        // are not and for type 0 (any), which a filter cannot tell apart.
        uint64_t allowed = sandbox->allowed_namespaces;
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
    if (sandbox->lock_personality) {
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)(unsigned)personality(0xffffffff));
        add(filter, eperm, "personality", 1, &other);
        load(filter);
    }
    if (sandbox->restrict_realtime) {
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
    if (sandbox->deny_write_execute) {
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
    if (sandbox->restrict_suid_sgid) {
        scmp_filter_ctx filter = new_filter(SCMP_ACT_ALLOW);
        restrict_mode_bit(filter, eperm, S_ISUID);
        restrict_mode_bit(filter, eperm, S_ISGID);
        load(filter);
    }
}


int sandbox_has_filters(const struct exec_sandbox *sandbox) {
    return sandbox->filter_count > 0 || sandbox->has_restrict_namespaces || sandbox->lock_personality || sandbox->restrict_realtime
        || sandbox->deny_write_execute || sandbox->restrict_suid_sgid;
}

void sandbox_load_filters(const struct exec_sandbox *sandbox) {
    load_argument_filters(sandbox);
    // SystemCallFilter= and the call lists of the Protect…= keys, last: nothing of this program runs after them but execve.
    for (size_t i = 0; i < sandbox->filter_count; i++) {
        const struct exec_filter *wanted = &sandbox->filters[i];
        scmp_filter_ctx filter = new_filter(action(wanted->default_action));
        for (size_t name = 0; name < wanted->name_count; name++) add(filter, action(wanted->action), wanted->names[name], 0, NULL);
        load(filter);
    }
}
