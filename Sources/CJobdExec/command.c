// The last steps before the command, as the job's user: its working directory, glibc's signals, and
// the execve itself; and the other mode's reading of files as the user.
#define _GNU_SOURCE
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit.h"

// systemd's default PATH for services, as jobd gives a job without its own (JobRunner.defaultPath).
static const char default_path[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

void exec_change_directory(const char *directory, int optional) {
    if (chdir(directory) == 0) return;
    if (!optional || (errno != ENOENT && errno != ENOTDIR) || chdir("/") != 0)
        exec_fail(EXIT_CHDIR, "cannot change to the working directory %s: %s", directory, strerror(errno));
}

// glibc's two internal signals (32 and 33) back to their default, so that the command starts with
// every signal at its default, as systemd starts a service (reset_all_signal_handlers). jobd spawns
// this program with POSIX_SPAWN_SETSIGDEF for every other signal, but glibc's posix_spawn leaves
// these two ignored in the child when the parent has handlers for them, as every threaded program
// has, and glibc's own sigaction refuses to touch them; an ignored signal stays ignored across
// execve. The raw system call takes them: an all-zero kernel sigaction is SIG_DFL with no flags and
// an empty mask on every architecture. (All 64 would cost 17 µs of CPU a run here; these two, 0.6.)
void exec_reset_glibc_signals(void) {
    unsigned long defaults[8] = {0};
    for (int signal = 32; signal <= 33; signal++) syscall(SYS_rt_sigaction, signal, defaults, NULL, sizeof(uint64_t));
}

// execve(2) of `command` with `environment`, a name without a slash searched in the job's PATH
// (as execvp would search it, but in the job's PATH, not this process's); returns only on failure.
void exec_command(char **argv, char **environment) {
    const char *command = argv[0];
    if (strchr(command, '/') != NULL) {
        execve(command, argv, environment);
        exec_fail(EXIT_EXEC, "%s: %s", command, strerror(errno));
    }
    const char *path = default_path;
    for (char **entry = environment; *entry != NULL; entry++)
        if (strncmp(*entry, "PATH=", 5) == 0) path = *entry + 5;
    int denied = 0;
    for (const char *cursor = path;;) {
        size_t length = strcspn(cursor, ":");
        char candidate[4096];
        if (snprintf(candidate, sizeof candidate, "%.*s/%s", (int)length, length == 0 ? "." : cursor,
                     command) < (int)sizeof candidate) {
            execve(candidate, argv, environment);
            if (errno == EACCES) denied = 1;
            else if (errno != ENOENT && errno != ENOTDIR && errno != ESTALE && errno != ENODEV && errno != ETIMEDOUT)
                exec_fail(EXIT_EXEC, "%s: %s", candidate, strerror(errno));
        }
        if (cursor[length] == '\0') break;
        cursor += length + 1;
    }
    if (denied) exec_fail(EXIT_EXEC, "%s: %s", command, strerror(EACCES));
    exec_fail(EXIT_EXEC, "%s: executable not found in PATH", command);
}

// All of descriptor fd, up to `limit` bytes and one more (so that a caller sees it was over).
static char *read_all(int fd, uint64_t limit, size_t *count) {
    size_t capacity = 4096;
    char *bytes = malloc(capacity);
    *count = 0;
    while (bytes != NULL) {
        if (*count == capacity) {
            if (capacity > limit) break;
            capacity *= 2;
            char *grown = realloc(bytes, capacity);
            if (grown == NULL) free(bytes);
            bytes = grown;
            continue;
        }
        ssize_t got = read(fd, bytes + *count, capacity - *count);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            free(bytes);
            return NULL;
        }
        if (got == 0) break;
        *count += (size_t)got;
    }
    return bytes;
}

int exec_read_files(const char **files, size_t file_count, uint64_t limit) {
    for (size_t i = 0; i < file_count; i++) {
        int error = 0;
        struct stat status = {0};
        size_t count = 0;
        char *bytes = NULL;
        int fd = open(files[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 || fstat(fd, &status) != 0) {
            error = errno;
        } else if (S_ISREG(status.st_mode)) {
            bytes = read_all(fd, limit, &count);
            if (bytes == NULL) error = errno;
            else if (count > limit) error = EFBIG;
        }
        if (fd >= 0) close(fd);
        if (error != 0 || !S_ISREG(status.st_mode)) count = 0;
        printf("%d %u %zu\n", error, (unsigned)status.st_mode, count);
        if (count > 0) fwrite(bytes, 1, count, stdout);
        free(bytes);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
