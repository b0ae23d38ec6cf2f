// libuv registers every socket level-triggered and has no option for edge-triggered polling.
// Level-triggered, epoll puts each socket it reports back at the head of its ready list, so the
// next epoll_wait serves sockets answered in the last batch before those whose requests arrived
// earlier but missed it; under a steady load those wait almost two batches (the hot p99 in
// bench/HISTORY.md). Edge-triggered, the ready list is in arrival order, as nginx has it.
//
// This file defines epoll_ctl and epoll_wait: the executable's definitions interpose on the C
// library's, so libuv's calls come here and go on to the kernel. Marked descriptors are
// registered with EPOLLET and EPOLLRDHUP added; a loop's epoll_wait notes the EPOLLRDHUP reports.
// libuv's reads assume level-triggered reports twice, and TCPStream covers both for a marked
// socket: after 32 full buffers it stops with bytes left (TCPStream re-registers the socket after
// a full read), and at a short read it stops before a FIN that came with the data (TCPStream asks
// pd_edge_triggered_peer_closed, as nginx keeps EPOLLRDHUP as a pending end of file). Writes need
// nothing: libuv asks for EPOLLOUT when the kernel took less than it was given; registering makes
// the kernel check the socket as it is then, and space freed later comes as a new edge.
#include "EdgeTriggered.h"

#ifdef __linux__
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { DESCRIPTORS = 1 << 16 };

// Relaxed: a socket is marked, registered, polled, read and unmarked on its loop's thread, and a
// loop's epoll instance is declared, polled and withdrawn on it too; a descriptor number reused on
// another thread is only reused after close, which follows the unmark or the withdrawal.
static _Atomic unsigned char marked[DESCRIPTORS];
static _Atomic unsigned char peerClosed[DESCRIPTORS];
// Per epoll instance: 0 not a loop's, else LOOP and, as a test hook, what is left as if libuv had
// not called the functions below: its registrations (BYPASS_CTL), its reports (BYPASS_WAIT).
enum { LOOP = 1, BYPASS_CTL = 2, BYPASS_WAIT = 4 };
static _Atomic unsigned char loopEpoll[DESCRIPTORS];

static unsigned char entry(_Atomic unsigned char *table, int fd) {
    return fd >= 0 && fd < DESCRIPTORS ? atomic_load_explicit(&table[fd], memory_order_relaxed) : 0;
}

static bool flag(_Atomic unsigned char *table, int fd) {
    return entry(table, fd) != 0;
}

bool pd_edge_triggered_mark(int fd, bool on) {
    if (fd < 0 || fd >= DESCRIPTORS) return false;
    atomic_store_explicit(&peerClosed[fd], 0, memory_order_relaxed);
    atomic_store_explicit(&marked[fd], on ? 1 : 0, memory_order_relaxed);
    return true;
}

bool pd_edge_triggered_watch_loop(int epfd, bool on) {
    if (epfd < 0 || epfd >= DESCRIPTORS) return false;
    atomic_store_explicit(&loopEpoll[epfd], on ? LOOP : 0, memory_order_relaxed);
    return true;
}

bool pd_edge_triggered_bypass_loop(int epfd, bool registrations, bool reports) {
    if (!(entry(loopEpoll, epfd) & LOOP)) return false;
    unsigned char value = LOOP | (registrations ? BYPASS_CTL : 0) | (reports ? BYPASS_WAIT : 0);
    atomic_store_explicit(&loopEpoll[epfd], value, memory_order_relaxed);
    return true;
}

bool pd_edge_triggered_peer_closed(int fd) {
    return flag(peerClosed, fd);
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event) {
    struct epoll_event edge;
    if (event != NULL && (op == EPOLL_CTL_ADD || op == EPOLL_CTL_MOD) && flag(marked, fd) && !(entry(loopEpoll, epfd) & BYPASS_CTL)) {
        edge = *event;
        edge.events |= EPOLLET | EPOLLRDHUP;
        event = &edge;
    }
    return (int)syscall(SYS_epoll_ctl, epfd, op, fd, event);
}

// Only a loop's instance: other users of epoll in the process (Dispatch, say) keep a pointer in
// `data`, not a descriptor.
static int notePeerCloses(int epfd, struct epoll_event *events, int count) {
    if (count <= 0 || entry(loopEpoll, epfd) != LOOP) return count;  // a loop's, not bypassed
    for (int i = 0; i < count; i++) {
        int fd = events[i].data.fd;
        if ((events[i].events & EPOLLRDHUP) && flag(marked, fd)) {
            atomic_store_explicit(&peerClosed[fd], 1, memory_order_relaxed);
        }
    }
    return count;
}

int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout, const sigset_t *sigmask) {
    return notePeerCloses(epfd, events, (int)syscall(SYS_epoll_pwait, epfd, events, maxevents, timeout, sigmask, _NSIG / 8));
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout) {
    return epoll_pwait(epfd, events, maxevents, timeout, NULL);
}
#else
bool pd_edge_triggered_mark(int fd, bool on) {
    (void)fd;
    (void)on;
    return false;
}

bool pd_edge_triggered_watch_loop(int epfd, bool on) {
    (void)epfd;
    (void)on;
    return false;
}

bool pd_edge_triggered_bypass_loop(int epfd, bool registrations, bool reports) {
    (void)epfd;
    (void)registrations;
    (void)reports;
    return false;
}

bool pd_edge_triggered_peer_closed(int fd) {
    (void)fd;
    return false;
}
#endif
