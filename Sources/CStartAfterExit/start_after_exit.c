#include "juice_start_after_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/// The child's side: everything here is async-signal-safe.
static void juice_child(int wait_fd, int highest_fd, const char *path, char *const argv[], char *const envp[]) {
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd < 0) _exit(127);
    for (int fd = 0; fd <= 2; fd++) {
        if (dup2(null_fd, fd) < 0) _exit(127);
    }
    // The pipe's read end moves to 3; everything above it is closed.
    if (wait_fd != 3) {
        if (dup2(wait_fd, 3) < 0) _exit(127);
    }
#if defined(__linux__) && defined(SYS_close_range)
    if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
#endif
    {
        for (int fd = 4; fd <= highest_fd; fd++) close(fd);
    }
    if (null_fd > 3) close(null_fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction defaults;
    defaults.sa_handler = SIG_DFL;
    defaults.sa_flags = 0;
    sigemptyset(&defaults.sa_mask);
    const int reset[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD};
    for (unsigned index = 0; index < sizeof reset / sizeof reset[0]; index++) sigaction(reset[index], &defaults, NULL);
    char byte;
    for (;;) {
        ssize_t got = read(3, &byte, 1);
        if (got == 0 || (got < 0 && errno != EINTR)) break;
    }
    close(3);
    execve(path, argv, envp);
    _exit(127);
}

int juice_start_after_exit(const char *path, char *const argv[], char *const envp[]) {
    int ends[2];
    if (pipe(ends) != 0) return errno;
    // The write end stays open in this process until it exits; no program it starts inherits it.
    if (fcntl(ends[1], F_SETFD, FD_CLOEXEC) != 0 || fcntl(ends[0], F_SETFD, FD_CLOEXEC) != 0) {
        int failure = errno;
        close(ends[0]);
        close(ends[1]);
        return failure;
    }
    // Where close_range is missing, the child closes up to the descriptor limit
    // (read here: getrlimit is not async-signal-safe), at most 65,536 of them.
    struct rlimit limit;
    int highest = 1023;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        highest = (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > 65536) ? 65535 : (int)limit.rlim_cur - 1;
    }
    pid_t child = fork();
    if (child < 0) {
        int failure = errno;
        close(ends[0]);
        close(ends[1]);
        return failure;
    }
    if (child == 0) {
        close(ends[1]);
        juice_child(ends[0], highest, path, argv, envp);
    }
    close(ends[0]);
    return 0;
}
