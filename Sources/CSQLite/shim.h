#include <sqlite3.h>

/// `sqlite3_db_config` is variadic, which Swift cannot call: the one option the
/// store needs, as a plain function. A connection to a store marked damaged must not
/// checkpoint its write-ahead log into the file when it closes.
static inline int juice_sqlite3_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
