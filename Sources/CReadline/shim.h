// GNU readline (GPL-3; README, "Line editing and the GPL") for the screens' line
// editing and history on a terminal. readline's headers need <stdio.h> first.
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

// readline is configured through global variables; Swift 6 refuses to touch a C
// global (shared mutable state), so these do it in C, on the screen's one thread.

/// Signals stay juice's own (`StopSignals`): readline installs no handler for
/// SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP or SIGWINCH, and never calls setenv
/// (LINES, COLUMNS) in a process with other threads.
static inline void juice_readline_configure(void) {
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_change_environment = 0;
    rl_readline_name = "juice";
    rl_instream = stdin;
    rl_outstream = stdout;
}

/// Throws away the line being typed and gives the terminal back (after Ctrl-C or
/// SIGTERM while a prompt waits).
static inline void juice_readline_abandon(void) {
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_callback_handler_remove();
}
