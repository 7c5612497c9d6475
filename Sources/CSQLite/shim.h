#include <sqlite3.h>

// sqlite3_db_config is variadic, so Swift cannot call it; this fixes the one
// integer form the store uses.
static inline int csqlite_db_config_int(sqlite3 *db, int op, int value) {
    int current = 0;
    return sqlite3_db_config(db, op, value, &current);
}
