// The sandbox of a run (issue 27), applied as systemd 252 applies the same keys of a service
// (systemd.exec(5)): sandbox.c takes the two steps, as root and just before execve; mounts.c makes
// the mount namespace, devices.c the device policy, seccomp.c the filters. See docs/internals.md,
// "Sandboxing".
#ifndef JOBD_EXEC_SANDBOX_H
#define JOBD_EXEC_SANDBOX_H

#include <stdint.h>

#include "plan.h"

// As root, before the credentials switch: namespaces, mounts, the device policy on the run's cgroup
// v2 (its directory, or NULL), the capability bounding set. `switches_user`: a uid switch follows;
// `as`: the run's credentials (NULL when it keeps root's).
void sandbox_apply_as_root(const struct exec_sandbox *sandbox, const char *cgroup, int switches_user, const struct exec_credentials *as);
// After the switch, just before execve: ambient capabilities, no_new_privs, seccomp filters.
void sandbox_apply_last(const struct exec_sandbox *sandbox);
// Removes the directories a failed setup left in /run (exec_fail calls it).
void sandbox_abandon(void);

// The steps' parts, for sandbox.c.
void sandbox_mount_namespace(const struct exec_sandbox *sandbox, const struct exec_credentials *as);
// NULL once the policy is on `cgroup`, or why the kernel would not take it.
const char *sandbox_device_policy(int policy, const char *cgroup);
int sandbox_has_filters(const struct exec_sandbox *sandbox);
void sandbox_load_filters(const struct exec_sandbox *sandbox);

#endif
