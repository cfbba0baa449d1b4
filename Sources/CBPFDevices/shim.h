// Whether the kernel loads a BPF device program for jobd (bpf(2) is reached only through the
// variadic syscall(2), which Swift cannot call); imported by JobdRunner alone. jobd-cgexec loads the
// real policy of each run; this is the check systemd 252's bpf_devices_supported() makes, so that
// a job whose device policy will be left out is warned about when it is loaded.
#ifndef JOBD_CBPFDEVICES_SHIM_H
#define JOBD_CBPFDEVICES_SHIM_H

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

// 0 when a trivial BPF_PROG_TYPE_CGROUP_DEVICE program (allow all) loads, else the errno.
static inline int jobd_bpf_device_program_error(void) {
    struct bpf_insn program[2];
    memset(program, 0, sizeof program);
    program[0].code = BPF_ALU64 | BPF_MOV | BPF_K;  // r0 = 1
    program[0].imm = 1;
    program[1].code = BPF_JMP | BPF_EXIT;
    union bpf_attr load;
    memset(&load, 0, sizeof load);
    load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    load.insns = (uint64_t)(uintptr_t)program;
    load.insn_cnt = 2;
    load.license = (uint64_t)(uintptr_t)"GPL";
    long fd = syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof load);
    if (fd < 0) return errno;
    close((int)fd);
    return 0;
}

#endif
