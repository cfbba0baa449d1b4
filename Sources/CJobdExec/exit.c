// The one way jobd-cgexec fails before the command runs (include/exit.h).
#define _GNU_SOURCE
#include "exit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sandbox.h"

// Where a failure before the command is reported: the status socket once it is known, else stderr.
static int status_fd = -1;

void exec_fail_report_to(int fd) {
    status_fd = fd;
}

int exec_fail_report_fd(void) {
    return status_fd;
}

void exec_fail(int code, const char *format, ...) {
    char message[8192];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, sizeof message, format, arguments);
    va_end(arguments);
    if (status_fd < 0 || send(status_fd, message, strlen(message), MSG_NOSIGNAL) < 0)
        dprintf(STDERR_FILENO, "jobd-cgexec: %s\n", message);
    sandbox_abandon();
    _exit(code);
}
