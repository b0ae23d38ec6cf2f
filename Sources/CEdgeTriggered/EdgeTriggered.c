// libuv registers every socket level-triggered and has no option for edge-triggered polling.
// Level-triggered, epoll puts each socket it reports back at the head of its ready list, so the
// next epoll_wait serves sockets answered in the last batch before those whose requests arrived
// earlier but missed it; under a steady load those wait almost two batches (the hot p99 in
// bench/HISTORY.md). Edge-triggered, the ready list is in arrival order, as nginx has it.
//
// This file defines epoll_ctl: the executable's definition interposes on the C library's, so
// libuv's calls come here. Marked descriptors get EPOLLET added; every call goes on to the kernel.
// libuv's reads assume level-triggered reports twice, and TCPStream covers both for a marked
// socket: after 32 full buffers it stops with bytes left (TCPStream re-registers the socket after
// a full read), and at a short read it stops before a FIN that came with the data
// (pd_edge_triggered_end_pending). Writes need nothing: libuv asks for EPOLLOUT when the kernel
// took less than it was given; registering makes the kernel check the socket as it is then, and
// space freed later comes as a new edge.
#include "EdgeTriggered.h"

#ifdef __linux__
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { MARKABLE_DESCRIPTORS = 1 << 16 };

// Relaxed: a socket is marked, registered and unmarked on its loop's thread; a descriptor number
// reused on another thread is only reused after close, which follows the unmark.
static _Atomic unsigned char marked[MARKABLE_DESCRIPTORS];

bool pd_edge_triggered_mark(int fd, bool on) {
    if (fd < 0 || fd >= MARKABLE_DESCRIPTORS) return false;
    atomic_store_explicit(&marked[fd], on ? 1 : 0, memory_order_relaxed);
    return true;
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event) {
    struct epoll_event edge;
    if (event != NULL && (op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD) && fd >= 0 && fd < MARKABLE_DESCRIPTORS
        && atomic_load_explicit(&marked[fd], memory_order_relaxed)) {
        edge = *event;
        edge.events |= EPOLLET;
        event = &edge;
    }
    return (int)syscall(SYS_epoll_ctl, epfd, op, fd, event);
}

bool pd_edge_triggered_end_pending(int fd) {
    char byte;
    return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}
#else
bool pd_edge_triggered_mark(int fd, bool on) {
    (void)fd;
    (void)on;
    return false;
}

bool pd_edge_triggered_end_pending(int fd) {
    (void)fd;
    return false;
}
#endif
