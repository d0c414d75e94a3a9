#include <sqlite3.h>

/// `sqlite3_config` with one int argument. Swift cannot call C's variadic functions.
static inline int flint_sqlite3_config_int(int option, int value) {
    return sqlite3_config(option, value);
}
