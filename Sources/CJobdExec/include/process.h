// The steps of a run's process that are not its sandbox, in the order jobd-cgexec takes them
// (credentials.c, cgroup.c, attributes.c, command.c). Each fails through exec_fail.
#ifndef JOBD_EXEC_PROCESS_H
#define JOBD_EXEC_PROCESS_H

#include <stdint.h>

#include "plan.h"

// Writes "0" to DIR/cgroup.procs: the run's cgroup v2, or one of its v1 twins.
void exec_enter_cgroup(const char *directory);
// Resource limits, nice value, I/O priority, CPU scheduling and umask, while still root.
void exec_apply_attributes(const struct exec_attributes *attributes);
// A session keyring of the run's own, given to the run's user and group.
void exec_join_session_keyring(const struct exec_credentials *credentials);
// Supplementary groups, then gid, then uid (real, effective and saved).
void exec_switch_credentials(const struct exec_credentials *credentials);
// The working directory, as the switched user (optional: a missing one means /).
void exec_change_directory(const char *directory, int optional);
// glibc's signals 32 and 33, which posix_spawn left ignored, back to their default.
void exec_reset_glibc_signals(void);
// execve(2) of argv with environment, a name without a slash searched in the environment's PATH.
void exec_command(char **argv, char **environment) __attribute__((noreturn));
// Reads each file (as the switched user) to stdout: "ERRNO MODE SIZE\n" then SIZE bytes. 0 or 1.
int exec_read_files(const char **files, size_t count, uint64_t limit);

#endif
