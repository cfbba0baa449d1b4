// The device policy of PrivateDevices=, DevicePolicy=closed and ProtectClock=: a BPF device
// program on the run's cgroup v2, as systemd's bpf-devices: only the pseudo devices (and the RTC,
// read-only, for the clock policy) may be opened.
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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
const char *sandbox_device_policy(int policy, const char *cgroup) {
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
    if (policy == EXEC_DEVICES_CLOCK) {
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

