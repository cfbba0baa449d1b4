#ifndef JOBD_CSOCKET_SHIM_H
#define JOBD_CSOCKET_SHIM_H

// accept4, pipe2 and POLLRDHUP are GNU extensions that Swift's Glibc module leaves out (it is
// built without _GNU_SOURCE); JobdControl alone imports this, to set CLOEXEC atomically and to see
// a client hang up while its reply is pending. Declared here rather than by including the system
// headers, whose declarations would then belong to this module instead of Glibc.
struct sockaddr;
int accept4(int sockfd, struct sockaddr *addr, unsigned int *addrlen, int flags);
int pipe2(int pipefd[2], int flags);

#define JOBD_POLLRDHUP 0x2000

#endif
