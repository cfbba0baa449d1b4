#ifndef JOBD_CSPAWN_SHIM_H
#define JOBD_CSPAWN_SHIM_H

// What JobdRunner's spawner and run reactor need beyond Swift's Glibc module (built without
// _GNU_SOURCE, and without epoll): epoll, pidfd_open, pidfd_send_signal and pipe2 (the spawn itself is spawn.h). Declared
// here rather than by including the system headers, whose declarations would then belong to this
// module instead of Glibc (as Sources/CSocket does). JobdRunner alone imports this.


int pipe2(int pipefd[2], int flags);
int pidfd_open(int pid, unsigned int flags);
// <sys/pidfd.h> (glibc 2.36); jobd sends no siginfo, so `info` is always NULL.
int pidfd_send_signal(int pidfd, int sig, void *info, unsigned int flags);
// <fcntl.h> under _GNU_SOURCE: a descriptor that only names a directory (a cgroup to start in).
#define JOBD_O_PATH 010000000

// <sys/epoll.h>, whose event is packed on x86-64 alone.
typedef union jobd_epoll_data {
    void *ptr;
    int fd;
    unsigned int u32;
    unsigned long long u64;
} jobd_epoll_data;
struct jobd_epoll_event {
    unsigned int events;
    jobd_epoll_data data;
}
#if defined(__x86_64__)
__attribute__((__packed__))
#endif
;
int epoll_create1(int flags);
int epoll_ctl(int epfd, int op, int fd, struct jobd_epoll_event *event);
int epoll_wait(int epfd, struct jobd_epoll_event *events, int maxevents, int timeout);
#define JOBD_EPOLL_CLOEXEC 02000000
#define JOBD_EPOLLIN 0x001
#define JOBD_EPOLL_CTL_ADD 1
#define JOBD_EPOLL_CTL_DEL 2

#endif
