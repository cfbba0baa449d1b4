// The two steps of a run's sandbox (include/sandbox.h): the namespaces, mounts, device policy and
// bounding set as root; the ambient capabilities, no_new_privs and filters last.
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit.h"

static void bring_up_loopback(void) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq request = {0};
    snprintf(request.ifr_name, sizeof request.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &request) != 0) exec_fail(EXIT_NETWORK, "cannot read lo: %s", strerror(errno));
    request.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(fd, SIOCSIFFLAGS, &request) != 0) exec_fail(EXIT_NETWORK, "cannot bring up lo: %s", strerror(errno));
    close(fd);
}

void sandbox_apply_as_root(const struct exec_sandbox *sandbox, const char *cgroup, int switches_user, const struct exec_credentials *as) {
    if (sandbox->device_policy != EXEC_DEVICES_NONE) {
        // As systemd 252 (cgroup_apply_devices): a policy the kernel will not take is warned
        // about and the run goes on without it, its private /dev, filters and bounding set kept.
        const char *refused = sandbox_device_policy(sandbox->device_policy, cgroup);
        if (refused != NULL)
            dprintf(STDERR_FILENO, "jobd-cgexec: warning: %s; the run goes on without its device policy, as a systemd service "
                    "would: the devices it can reach are not limited to the pseudo devices\n", refused);
    }
    int mounts = sandbox->mount_count > 0 || sandbox->private_dev || sandbox->private_tmp != NULL || sandbox->nosuid;
    int flags = (mounts ? CLONE_NEWNS : 0) | (sandbox->private_network ? CLONE_NEWNET : 0) | (sandbox->new_uts ? CLONE_NEWUTS : 0);
    if (flags != 0 && unshare(flags) != 0) exec_fail(EXIT_NAMESPACE, "cannot make the run's namespaces: %s", strerror(errno));
    if (sandbox->private_network) bring_up_loopback();
    if (mounts) sandbox_mount_namespace(sandbox, as);
    if (sandbox->has_bounding) {
        for (unsigned long cap = 0; cap <= 63; cap++) {
            if (sandbox->bounding & (1ULL << cap)) continue;
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
                if (errno == EINVAL) break;  // past the kernel's last capability
                exec_fail(EXIT_CAPABILITIES, "cannot drop capability %lu from the bounding set: %s", cap, strerror(errno));
            }
        }
    }
    // Ambient capabilities survive the switch to the job's user only with the permitted ones kept.
    if (sandbox->ambient != 0 && switches_user && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
        exec_fail(EXIT_CAPABILITIES, "cannot keep capabilities: %s", strerror(errno));
}

static void set_capabilities(uint64_t permitted, uint64_t effective, uint64_t inheritable) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2] = {
        {(uint32_t)effective, (uint32_t)permitted, (uint32_t)inheritable},
        {(uint32_t)(effective >> 32), (uint32_t)(permitted >> 32), (uint32_t)(inheritable >> 32)},
    };
    if (syscall(SYS_capset, &header, data) != 0) exec_fail(EXIT_CAPABILITIES, "cannot set capabilities: %s", strerror(errno));
}

static uint64_t effective_capabilities(void) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2] = {0};
    if (syscall(SYS_capget, &header, data) != 0) return 0;
    return (uint64_t)data[1].effective << 32 | data[0].effective;
}

void sandbox_apply_last(const struct exec_sandbox *sandbox) {
    if (sandbox->ambient != 0) {
        uint64_t wanted = sandbox->ambient & (sandbox->has_bounding ? sandbox->bounding : ~0ULL);
        set_capabilities(wanted, wanted, wanted);
        for (unsigned long cap = 0; cap <= 63; cap++)
            if ((wanted & (1ULL << cap)) && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0)
                exec_fail(EXIT_CAPABILITIES, "cannot raise ambient capability %lu: %s", cap, strerror(errno));
    }
    int filters = sandbox_has_filters(sandbox);
    // As systemd: a seccomp filter without CAP_SYS_ADMIN (a User= run) implies no_new_privs.
    int needs = sandbox->no_new_privileges || (filters && !(effective_capabilities() & (1ULL << CAP_SYS_ADMIN)));
    if (needs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) exec_fail(EXIT_NO_NEW_PRIVILEGES, "cannot set no_new_privs: %s", strerror(errno));
    if (filters) sandbox_load_filters(sandbox);
}
