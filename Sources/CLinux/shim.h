// Linux headers that Swift's Glibc module does not import. Declarations only; the functions are
// part of the C library, so nothing is linked beyond libc. _GNU_SOURCE is not defined here: it would
// give some structs (fd_set) other member names than Glibc's module sees, so the few GNU-only
// definitions we need are restated below with their kernel ABI.
#ifndef TIMERD_CLINUX_SHIM_H
#define TIMERD_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <malloc.h>

/// `struct ucred` of man unix(7), returned by getsockopt(SO_PEERCRED).
struct timerd_ucred {
    int pid;
    unsigned int uid;
    unsigned int gid;
};

/// SO_PEERCRED (asm-generic/socket.h).
static const int TIMERD_SO_PEERCRED = 17;

/// SO_DOMAIN (asm-generic/socket.h): getsockopt's socket domain, used to check passed sockets.
static const int TIMERD_SO_DOMAIN = 39;

/// POSIX_SPAWN_SETSID (glibc's spawn.h under _GNU_SOURCE): the child calls setsid().
static const short TIMERD_POSIX_SPAWN_SETSID = 0x80;
/// accept4(2), declared by <sys/socket.h> only under _GNU_SOURCE; glibc has it since 2.10.
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
/// posix_spawn_file_actions_addclosefrom_np(3), glibc ≥ 2.34, declared only under _GNU_SOURCE:
/// the child closes every descriptor from `from` up, so a spawned daemon inherits none of ours.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
/// posix_spawn_file_actions_addchdir_np(3), glibc ≥ 2.29, declared only under _GNU_SOURCE: the
/// child changes to `path` before it execs (an on-finish action's working directory).
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);

/// pidfd_open(2) (Linux ≥ 5.3) through syscall(2), so that no newer glibc is needed: a descriptor
/// that becomes readable when process `pid` exits. Returns -1 with errno set on failure.
static inline int timerd_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
#endif
