#ifndef JOBD_CSPAWN_SHIM_H
#define JOBD_CSPAWN_SHIM_H

// What JobdRunner's spawner and run reactor need beyond Swift's Glibc module (built without
// _GNU_SOURCE, and without epoll): epoll, pidfd_open, pipe2, and glibc's posix_spawn extensions (a
// session of the child's own, its working directory, every descriptor from 3 up closed). Declared
// here rather than by including the system headers, whose declarations would then belong to this
// module instead of Glibc (as Sources/CSocket does). JobdRunner alone imports this.


int pipe2(int pipefd[2], int flags);
int pidfd_open(int pid, unsigned int flags);
// The first parameter is a posix_spawn_file_actions_t * (Glibc's type, passed from Swift).
int posix_spawn_file_actions_addchdir_np(void *actions, const char *path);
int posix_spawn_file_actions_addclosefrom_np(void *actions, int from);
// glibc 2.26+: the child calls setsid() before it executes.
#define JOBD_POSIX_SPAWN_SETSID 0x80

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
