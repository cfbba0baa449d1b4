// libpq, PostgreSQL's own client library (Debian's libpq-dev), for exactly one Swift target: JobdFleet.
#include <libpq-fe.h>
