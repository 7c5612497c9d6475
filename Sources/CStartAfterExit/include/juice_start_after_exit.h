#ifndef JUICE_START_AFTER_EXIT_H
#define JUICE_START_AFTER_EXIT_H

/// Starts the program at `path` with `argv` and `envp` once this process has exited:
/// a background job that must not take CPU from the command that starts it.
///
/// The child is forked now and waits, before `execve`, for end-of-file on a pipe whose
/// write end only this process holds (close-on-exec, so no other program inherits it):
/// the kernel closes it when this process exits, however it exits. Until then the
/// child only blocks in `read`. Meanwhile it has already: left this process's group
/// (`setpgid`, so the terminal's Ctrl-C and hang-up do not reach it), put `/dev/null`
/// on its standard streams, closed every other descriptor (so it holds none of this
/// process's files or `flock` locks), unblocked every signal and reset SIGINT,
/// SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGCHLD to their defaults. Between `fork`
/// and `execve` it calls only async-signal-safe functions.
///
/// Returns 0, or the `errno` of the step that failed in this process (`pipe`,
/// `fork`). A failure in the child (`execve`) ends it with status 127.
int juice_start_after_exit(const char *path, char *const argv[], char *const envp[]);

#endif
