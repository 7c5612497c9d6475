// The NATS C client (libnats 3.x). Debian's libnats-dev installs the header as
// <nats/nats.h> (and a deprecated <nats.h> that includes it); prefer the first.
#if __has_include(<nats/nats.h>)
#include <nats/nats.h>
#else
#include <nats.h>
#endif
