// GNU readline (GPL-3; the article "Line editing and the GPL") for the screens' line
// editing and history on a terminal. readline's headers need <stdio.h> first.
//
// The library is loaded when a screen starts at a terminal (`juice_readline_load`),
// not when `juice` starts: linking it (and the terminfo library it needs) would cost
// every command its loading, and only the screens edit lines. Each field of the table
// has the type of the function the header declares (`__typeof__`).
#include <dynamic_library.h>
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

#define JUICE_READLINE_FUNCTIONS(X) \
    X(clear_history) X(add_history) X(rl_reset_screen_size) X(rl_callback_handler_install) \
    X(rl_callback_handler_remove) X(rl_callback_read_char) X(rl_free_line_state) X(rl_callback_sigcleanup)

/// The readline functions the line editor calls. Filled whole by `juice_readline_load`.
struct juice_readline {
#define JUICE_READLINE_FIELD(name) __typeof__(&name) _Nonnull name;
    JUICE_READLINE_FUNCTIONS(JUICE_READLINE_FIELD)
#undef JUICE_READLINE_FIELD
};

/// Opens the libreadline whose major version the headers name, fills `table` and
/// configures readline (its configuration is global variables, which Swift 6 will not
/// touch: shared mutable state). Signals stay juice's own (`StopSignals`): readline
/// installs no handler for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP or SIGWINCH, and
/// never calls setenv (LINES, COLUMNS) in a process with other threads. Returns NULL,
/// or a line that says what could not be loaded. The library stays loaded.
static inline const char *_Nullable juice_readline_load(struct juice_readline *_Nonnull table) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "libreadline." JUICE_LIBRARY_TEXT(RL_VERSION_MAJOR) ".dylib",
        "/opt/homebrew/opt/readline/lib/libreadline." JUICE_LIBRARY_TEXT(RL_VERSION_MAJOR) ".dylib",
        "/usr/local/opt/readline/lib/libreadline." JUICE_LIBRARY_TEXT(RL_VERSION_MAJOR) ".dylib",
#else
        "libreadline.so." JUICE_LIBRARY_TEXT(RL_VERSION_MAJOR),
#endif
    };
    void *library = juice_library_open(names, JUICE_LIBRARY_COUNT(names));
    if (library == NULL) {
        const char *reason = dlerror();
        return reason != NULL ? reason : "cannot load libreadline";
    }
#define JUICE_READLINE_LOAD(name) \
    if ((table->name = (__typeof__(table->name))dlsym(library, #name)) == NULL) return "libreadline has no " #name;
    JUICE_READLINE_FUNCTIONS(JUICE_READLINE_LOAD)
#undef JUICE_READLINE_LOAD
    int *catch_signals = (int *)dlsym(library, "rl_catch_signals");
    int *catch_sigwinch = (int *)dlsym(library, "rl_catch_sigwinch");
    int *change_environment = (int *)dlsym(library, "rl_change_environment");
    const char **name = (const char **)dlsym(library, "rl_readline_name");
    FILE **input = (FILE **)dlsym(library, "rl_instream");
    FILE **output = (FILE **)dlsym(library, "rl_outstream");
    if (!catch_signals || !catch_sigwinch || !change_environment || !name || !input || !output) {
        return "libreadline lacks a setting juice needs (rl_catch_signals, rl_change_environment, …)";
    }
    *catch_signals = 0;
    *catch_sigwinch = 0;
    *change_environment = 0;
    *name = "juice";
    *input = stdin;
    *output = stdout;
    return NULL;
}
