// libpq, PostgreSQL's C client library (Debian: libpq-dev), for the PostgreSQL timer store.
// pkg-config's "libpq" adds -I/usr/include/postgresql, where libpq-fe.h lives.
#include <libpq-fe.h>
