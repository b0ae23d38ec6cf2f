#ifndef PRODUCT_DETAILS_EDGE_TRIGGERED_H
#define PRODUCT_DETAILS_EDGE_TRIGGERED_H

#include <stdbool.h>

/// Marks (or unmarks) a socket so that every epoll registration of it, libuv's included, is
/// edge-triggered (EPOLLET). Returns false where that is not possible: descriptors at or above
/// 65536, or a system without epoll. Unmark before the descriptor is closed.
bool pd_edge_triggered_mark(int fd, bool on);

/// After a short read of an edge-triggered socket: true when all that is left is the peer's FIN
/// (the next read would return 0). libuv stops reading at a short read, and a FIN that came in
/// with the data raises no edge of its own, so nothing else would report it.
bool pd_edge_triggered_end_pending(int fd);

#endif
