#ifndef PRODUCT_DETAILS_EDGE_TRIGGERED_H
#define PRODUCT_DETAILS_EDGE_TRIGGERED_H

#include <stdbool.h>

/// Marks (or unmarks) a socket so that every epoll registration of it, libuv's included, is
/// edge-triggered (EPOLLET) and reports the peer's FIN (EPOLLRDHUP). Returns false where that is
/// not possible: descriptors at or above 65536, or a system without epoll. Unmark before the
/// descriptor is closed.
bool pd_edge_triggered_mark(int fd, bool on);

/// Declares (or withdraws) `epfd` as a libuv loop's epoll instance, whose events carry the
/// descriptor in `data.fd`: only its reports are read for `pd_edge_triggered_peer_closed`.
/// Withdraw before the loop closes it.
bool pd_edge_triggered_watch_loop(int epfd, bool on);

/// A test hook: the loop's epoll instance `epfd` (declared with pd_edge_triggered_watch_loop)
/// keeps its registrations as libuv makes them (`registrations`) or its reports unread
/// (`reports`), as if libuv did not call the epoll_ctl or the epoll_wait defined here (a libuv
/// that submits epoll_ctl through io_uring, a static build that binds the C library's own).
/// Returns false when `epfd` is not a declared loop instance.
bool pd_edge_triggered_bypass_loop(int epfd, bool registrations, bool reports);

/// Whether a loop's epoll_wait has reported the peer's FIN for this marked socket. After a short
/// read this means all that is left is the FIN: libuv stops reading at a short read, and a FIN
/// that came with the data raises no edge of its own, so nothing else would report it.
bool pd_edge_triggered_peer_closed(int fd);

#endif
