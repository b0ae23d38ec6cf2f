/* An open-loop HTTP/1.1 load generator for bench/overload.py (issue 51; not part of the tests).
 *
 * Requests are offered at a constant mean rate with Poisson arrivals (exponential gaps drawn
 * from a seeded generator) and sent when their time comes whatever earlier ones are doing: no
 * request waits for another's answer, so a slow server cannot slow the offered load down
 * (wrk's closed loop does, and hides the queueing: coordinated omission). Each latency is
 * measured from the request's SCHEDULED send time, so a send that came late because this
 * process fell behind counts against the server's figures too, and the lag is reported.
 *
 * A request goes on an idle keep-alive connection when one is free, else on a new one, up to
 * --max-connections (past it, it waits for one in FIFO order, counted as a cap hit, its clock
 * already running). Each request has a client time-out from its scheduled time (--timeout-ms);
 * a timed-out request's connection is closed, as a real client gives up, so the server sees its
 * caller leave. One thread, epoll with nanosecond time-outs (epoll_pwait2), 127.0.0.1 only.
 *
 * Requests scheduled in the first --warmup seconds are sent but not counted; those of the next
 * --seconds are. --requests N instead schedules exactly N requests, all counted. Paths are
 * --prefix followed by a number: --first, --first + 1, ... (every path new), or with --cycle K
 * the K numbers from --first again and again.
 *
 * Prints one JSON line: counts by status, 200s split into complete pages and partial ones (a
 * body with a "missing" member), 503s with and without Retry-After, latency percentiles per
 * class of answer, client time-outs, errors, connections, the send lag and its own CPU time.
 *
 *   gcc -O2 -o openloop bench/openloop.c -lm     (bench/overload.py compiles it)
 *   openloop --port 8080 --rate 3200 --seconds 20 --warmup 3 --prefix /products/p --first 1
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { R_WAITING, R_FLIGHT, R_DONE };
enum { C_FREE, C_CONNECTING, C_BUSY, C_IDLE };
enum { K_COMPLETE, K_PARTIAL, K_503, K_OTHER, K_TIMEOUT, K_ERROR, K_COUNT };
static const char *KIND_NAMES[K_COUNT] = {"complete", "partial", "503", "other", "timeout", "error"};

typedef struct {
    int64_t scheduled;
    int32_t conn;
    uint8_t state;
    uint8_t retried;
    uint8_t sent;
} request_t;

typedef struct {
    int fd;
    int state;
    /* Bumped whenever the slot gets a new socket: an event still queued for the old one must
     * not be taken for the new one's. */
    uint32_t generation;
    /* Its place in `idle` while idle, so that one closed by the server leaves in O(1). */
    int idle_at;
    int64_t req;
    int reused;
    char *buf;
    size_t len, cap;
    char out[512];
    size_t out_len, out_done;
    int head_done, status, chunked, close_after, retry_after;
    size_t head_len;
    long content_length;
} conn_t;

/* A growable array of microsecond latencies. */
typedef struct {
    uint32_t *v;
    size_t n, cap;
} samples_t;

static struct {
    int port, max_conns, timeout_ms;
    double rate, seconds, warmup;
    long limit;
    const char *prefix, *label;
    unsigned long first, cycle;
    uint64_t seed;
} opt = {0, 4000, 5000, 0, 20, 0, 0, "/products/p", "run", 1, 0, 1};

static request_t *reqs;
static size_t nreqs, reqs_cap, cursor;
static conn_t *conns;
static int *idle, nidle, *freeslots, nfree, open_conns, max_open;
static int64_t *pending;
static size_t pend_head, pend_tail, pend_cap;
static int ep;
static int64_t t0, counted_from, counted_until;
static struct sockaddr_in target;

static long statuses[600], kinds[K_COUNT], with_ra, without_ra;
static long opened, cap_hits, stale_retries, connect_errors, reset_errors, parse_errors, unfinished;
static long sent_counted, scheduled_counted;
static int64_t first_send = -1, last_send = -1;
static samples_t lat[K_COUNT], lat_all, lat_503_ra, lag;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    p = realloc(p, c * size);
    if (!p) { perror("realloc"); exit(2); }
    *cap = c;
    return p;
}

static void add_sample(samples_t *s, int64_t ns) {
    s->v = grow(s->v, &s->cap, s->n + 1, sizeof *s->v);
    int64_t us = ns / 1000;
    s->v[s->n++] = us < 0 ? 0 : us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

static uint64_t splitmix(void) {
    uint64_t z = (opt.seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* An exponential gap in nanoseconds: the time to the next arrival of a Poisson process. */
static int64_t gap(void) {
    double u = ((splitmix() >> 11) + 1) * (1.0 / 9007199254740992.0); /* (0, 1] */
    return (int64_t)(-log(u) / opt.rate * 1e9);
}

static int counted(int64_t req) {
    return reqs[req].scheduled >= counted_from && reqs[req].scheduled < counted_until;
}

static void finish(int64_t req, int kind, int status, int retry_after, int64_t at) {
    request_t *r = &reqs[req];
    r->state = R_DONE;
    r->conn = -1;
    if (!counted(req)) return;
    kinds[kind]++;
    if (status > 0 && status < 600) statuses[status]++;
    if (status == 503) {
        if (retry_after) with_ra++; else without_ra++;
        if (retry_after) add_sample(&lat_503_ra, at - r->scheduled);
    }
    add_sample(&lat[kind], at - r->scheduled);
    add_sample(&lat_all, at - r->scheduled);
}

static void idle_push(conn_t *c) {
    c->state = C_IDLE;
    c->idle_at = nidle;
    idle[nidle++] = (int)(c - conns);
}

static conn_t *idle_pop(void) {
    conn_t *c = &conns[idle[--nidle]];
    c->idle_at = -1;
    return c;
}

static void idle_remove(conn_t *c) {
    int last = idle[--nidle];
    idle[c->idle_at] = last;
    conns[last].idle_at = c->idle_at;
    c->idle_at = -1;
}

static uint64_t event_key(conn_t *c) {
    return (uint64_t)c->generation << 32 | (uint32_t)(c - conns);
}

static void watch(conn_t *c, int op, uint32_t events) {
    struct epoll_event ev = {.events = events, .data.u64 = event_key(c)};
    epoll_ctl(ep, op, c->fd, &ev);
}

static void release_conn(conn_t *c) {
    if (c->state == C_IDLE) idle_remove(c);
    if (c->fd >= 0) close(c->fd); /* closing also removes it from the epoll set */
    c->fd = -1;
    c->state = C_FREE;
    if (c->req >= 0 && reqs[c->req].conn == (int32_t)(c - conns)) reqs[c->req].conn = -1;
    c->req = -1;
    c->len = 0;
    open_conns--;
    freeslots[nfree++] = (int)(c - conns);
}

static void reset_parse(conn_t *c) {
    c->len = 0;
    c->head_done = c->status = c->chunked = c->close_after = c->retry_after = 0;
    c->head_len = 0;
    c->content_length = -1;
}

static int write_out(conn_t *c) {
    while (c->out_done < c->out_len) {
        ssize_t n = write(c->fd, c->out + c->out_done, c->out_len - c->out_done);
        if (n < 0) {
            if (errno == EAGAIN) {
                watch(c, EPOLL_CTL_MOD, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
                return 0;
            }
            return -1;
        }
        c->out_done += (size_t)n;
    }
    return 0;
}

static void dispatch(int64_t req);
static void fail_request(conn_t *c, long *counter);

static void send_on(conn_t *c, int64_t req) {
    request_t *r = &reqs[req];
    unsigned long number = opt.cycle ? opt.first + (unsigned long)req % opt.cycle : opt.first + (unsigned long)req;
    c->req = req;
    c->state = C_BUSY;
    r->conn = (int32_t)(c - conns);
    r->state = R_FLIGHT;
    reset_parse(c);
    c->out_len = (size_t)snprintf(c->out, sizeof c->out, "GET %s%lu HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
                                  opt.prefix, number, opt.port);
    c->out_done = 0;
    int64_t at = now_ns();
    if (counted(req) && !r->sent) {
        r->sent = 1;
        sent_counted++;
        add_sample(&lag, at - r->scheduled);
        if (first_send < 0) first_send = at;
        last_send = at;
    }
    if (write_out(c) < 0) fail_request(c, &reset_errors);
}

static void open_and_send(int64_t req) {
    conn_t *c = &conns[freeslots[--nfree]];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeslots[nfree++] = (int)(c - conns);
        connect_errors++;
        finish(req, K_ERROR, 0, 0, now_ns());
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->generation++;
    c->reused = 0;
    open_conns++;
    opened++;
    if (open_conns > max_open) max_open = open_conns;
    watch(c, EPOLL_CTL_ADD, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
    c->req = req;
    reqs[req].conn = (int32_t)(c - conns);
    reqs[req].state = R_FLIGHT;
    if (connect(fd, (struct sockaddr *)&target, sizeof target) == 0) {
        send_on(c, req);
        return;
    }
    if (errno != EINPROGRESS) {
        fail_request(c, &connect_errors);
        return;
    }
    c->state = C_CONNECTING;
}

static void dispatch(int64_t req) {
    if (nidle > 0) {
        send_on(idle_pop(), req);
    } else if (nfree > 0) {
        open_and_send(req);
    } else {
        if (counted(req)) cap_hits++;
        reqs[req].state = R_WAITING;
        reqs[req].conn = -1;
        pending = grow(pending, &pend_cap, pend_tail + 1, sizeof *pending);
        pending[pend_tail++] = req;
    }
}

/* A connection came free or went idle: requests waiting for one go, oldest first. */
static void drain_pending(void) {
    while (pend_head < pend_tail && (nidle > 0 || nfree > 0)) {
        int64_t req = pending[pend_head++];
        if (reqs[req].state == R_WAITING) dispatch(req);
    }
    if (pend_head == pend_tail) pend_head = pend_tail = 0;
}

/* The exchange on `c` failed: a request that went out on a reused connection and got not a
 * byte back is sent again once on a new one (the server closed an idle connection as we wrote,
 * what every HTTP client retries), any other is an error. */
static void fail_request(conn_t *c, long *counter) {
    int64_t req = c->req;
    int stale = c->reused && c->len == 0 && c->state == C_BUSY;
    release_conn(c);
    if (req < 0) return;
    if (stale && !reqs[req].retried) {
        reqs[req].retried = 1;
        stale_retries++;
        dispatch(req);
        return;
    }
    (*counter)++;
    finish(req, K_ERROR, 0, 0, now_ns());
}

static int header_is(const char *line, size_t len, const char *name) {
    size_t n = strlen(name);
    return len > n && strncasecmp(line, name, n) == 0 && line[n] == ':';
}

static void parse_head(conn_t *c) {
    char *end = memmem(c->buf, c->len, "\r\n\r\n", 4);
    if (!end) return;
    c->head_done = 1;
    c->head_len = (size_t)(end - c->buf) + 4;
    int valid = c->head_len > 12 && memcmp(c->buf, "HTTP/1.", 7) == 0 && c->buf[8] == ' ';
    c->status = valid ? atoi(c->buf + 9) : -1;
    if (c->status < 100 || c->status > 599) c->status = -1;
    if (valid && c->buf[7] == '0') c->close_after = 1;
    char *line = memchr(c->buf, '\n', c->head_len);
    while (line && line + 1 < end) {
        line++;
        char *eol = memchr(line, '\r', (size_t)(end + 2 - line));
        if (!eol) break;
        size_t len = (size_t)(eol - line);
        const char *value = memchr(line, ':', len);
        value = value ? value + 1 : eol;
        while (value < eol && (*value == ' ' || *value == '\t')) value++;
        if (header_is(line, len, "content-length")) c->content_length = strtol(value, NULL, 10);
        else if (header_is(line, len, "transfer-encoding") && strncasecmp(value, "chunked", 7) == 0) c->chunked = 1;
        else if (header_is(line, len, "connection") && strncasecmp(value, "close", 5) == 0) c->close_after = 1;
        else if (header_is(line, len, "retry-after")) c->retry_after = 1;
        line = eol + 1;
    }
}

/* The length of a complete chunked body from `body`, or -1 while it is not complete. */
static long chunked_length(const char *body, size_t len) {
    size_t at = 0;
    for (;;) {
        const char *eol = memmem(body + at, len - at, "\r\n", 2);
        if (!eol) return -1;
        long size = strtol(body + at, NULL, 16);
        at = (size_t)(eol - body) + 2;
        if (size == 0) {
            const char *end = memmem(body + at, len - at, "\r\n", 2);
            /* No trailers are expected; the empty line ends the body. */
            return end ? (long)((size_t)(end - body) + 2) : -1;
        }
        if (at + (size_t)size + 2 > len) return -1;
        at += (size_t)size + 2;
    }
}

static void completed(conn_t *c, size_t total) {
    int64_t at = now_ns();
    int64_t req = c->req;
    int kind = K_OTHER;
    if (c->status == 200) {
        int partial = memmem(c->buf + c->head_len, total - c->head_len, "\"missing\":", 10) != NULL;
        kind = partial ? K_PARTIAL : K_COMPLETE;
    } else if (c->status == 503) {
        kind = K_503;
    }
    finish(req, kind, c->status, c->retry_after, at);
    c->req = -1;
    c->reused = 1;
    /* Bytes beyond the answer were never asked for: the framing cannot be trusted. */
    if (c->close_after || total != c->len) {
        release_conn(c);
    } else {
        c->len = 0;
        idle_push(c);
    }
}

static void try_complete(conn_t *c, int eof) {
    if (!c->head_done) parse_head(c);
    if (!c->head_done) return;
    if (c->status < 0) {
        fail_request(c, &parse_errors);
        return;
    }
    size_t body = c->len - c->head_len;
    if (c->status == 204 || c->status == 304 || (c->status >= 100 && c->status < 200)) {
        completed(c, c->head_len);
    } else if (c->chunked) {
        long n = chunked_length(c->buf + c->head_len, body);
        if (n >= 0) completed(c, c->head_len + (size_t)n);
    } else if (c->content_length >= 0) {
        if (body >= (size_t)c->content_length) completed(c, c->head_len + (size_t)c->content_length);
    } else if (eof) {
        c->close_after = 1;
        completed(c, c->len);
    }
}

static void on_readable(conn_t *c) {
    for (;;) {
        c->buf = grow(c->buf, &c->cap, c->len + 16384, 1);
        ssize_t n = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (n > 0) {
            if (c->state != C_BUSY) { release_conn(c); return; } /* an idle connection must stay quiet */
            c->len += (size_t)n;
            try_complete(c, 0);
            if (c->state != C_BUSY) return;
            continue;
        }
        if (n < 0 && errno == EAGAIN) return;
        /* End of stream or an error. */
        if (c->state == C_BUSY) {
            if (n == 0 && c->head_done && c->content_length < 0 && !c->chunked) {
                try_complete(c, 1);
                return;
            }
            fail_request(c, &reset_errors);
        } else {
            release_conn(c);
        }
        return;
    }
}

static void on_event(conn_t *c, uint32_t events) {
    if (c->state == C_CONNECTING) {
        int error = 0;
        socklen_t len = sizeof error;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
        if (error) { fail_request(c, &connect_errors); return; }
        watch(c, EPOLL_CTL_MOD, EPOLLIN | EPOLLRDHUP);
        send_on(c, c->req);
        return;
    }
    if ((events & EPOLLOUT) && c->state == C_BUSY && c->out_done < c->out_len) {
        if (write_out(c) < 0) { fail_request(c, &reset_errors); return; }
        if (c->out_done == c->out_len) watch(c, EPOLL_CTL_MOD, EPOLLIN | EPOLLRDHUP);
    }
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(c);
}

/* Requests whose time-out has come, oldest first: deadlines follow the schedule, so the scan
 * stops at the first that is not due. */
static void expire(int64_t now) {
    int64_t timeout = (int64_t)opt.timeout_ms * 1000000;
    while (cursor < nreqs) {
        request_t *r = &reqs[cursor];
        if (r->state == R_DONE) { cursor++; continue; }
        if (r->scheduled + timeout > now) break;
        if (r->conn >= 0) {
            conn_t *c = &conns[r->conn];
            c->req = -1;
            release_conn(c); /* the server sees its caller leave */
        }
        finish((int64_t)cursor, K_TIMEOUT, 0, 0, now);
        cursor++;
    }
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank, as bench/fleet.py's percentile. */
static double pct(samples_t *s, double share) {
    if (s->n == 0) return -1;
    long rank = lround(share * (double)s->n) - 1;
    if (rank < 0) rank = 0;
    if ((size_t)rank >= s->n) rank = (long)s->n - 1;
    return s->v[rank] / 1000.0;
}

static void print_samples(const char *name, samples_t *s, int comma) {
    if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_u32);
    printf("\"%s\":{\"count\":%zu,\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}%s", name, s->n, pct(s, 0.5), pct(s, 0.99),
           s->n ? s->v[s->n - 1] / 1000.0 : -1.0, comma ? "," : "");
}

static void usage(void) {
    fprintf(stderr, "usage: openloop --port N --rate R [--seconds S] [--warmup W] [--requests N] [--timeout-ms T]\n"
                    "                [--max-connections C] [--prefix P] [--first N] [--cycle K] [--seed S] [--label L]\n");
    exit(2);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) usage();
        const char *v = argv[++i];
        if (!strcmp(a, "--port")) opt.port = atoi(v);
        else if (!strcmp(a, "--rate")) opt.rate = atof(v);
        else if (!strcmp(a, "--seconds")) opt.seconds = atof(v);
        else if (!strcmp(a, "--warmup")) opt.warmup = atof(v);
        else if (!strcmp(a, "--requests")) opt.limit = atol(v);
        else if (!strcmp(a, "--timeout-ms")) opt.timeout_ms = atoi(v);
        else if (!strcmp(a, "--max-connections")) opt.max_conns = atoi(v);
        else if (!strcmp(a, "--prefix")) opt.prefix = v;
        else if (!strcmp(a, "--first")) opt.first = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--cycle")) opt.cycle = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--seed")) opt.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--label")) opt.label = v;
        else usage();
    }
    if (opt.port <= 0 || opt.port > 65535 || opt.rate <= 0 || opt.max_conns < 1 || opt.timeout_ms < 1 ||
        strlen(opt.prefix) > 400)
        usage();
    signal(SIGPIPE, SIG_IGN);
    struct rlimit files;
    getrlimit(RLIMIT_NOFILE, &files);
    if (files.rlim_cur < (rlim_t)opt.max_conns + 64 && files.rlim_max >= (rlim_t)opt.max_conns + 64) {
        files.rlim_cur = (rlim_t)opt.max_conns + 64;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t)opt.port);
    target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    conns = calloc((size_t)opt.max_conns, sizeof *conns);
    idle = malloc(sizeof *idle * (size_t)opt.max_conns);
    freeslots = malloc(sizeof *freeslots * (size_t)opt.max_conns);
    for (int i = opt.max_conns - 1; i >= 0; i--) {
        conns[i].fd = -1;
        conns[i].req = -1;
        conns[i].idle_at = -1;
        freeslots[nfree++] = i;
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event events[512];
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);

    t0 = now_ns();
    counted_from = opt.limit ? t0 : t0 + (int64_t)(opt.warmup * 1e9);
    counted_until = opt.limit ? INT64_MAX : counted_from + (int64_t)(opt.seconds * 1e9);
    int64_t schedule_end = opt.limit ? INT64_MAX : counted_until;
    int64_t next = t0 + gap();
    int64_t give_up = INT64_MAX;
    for (;;) {
        int64_t now = now_ns();
        int scheduling = next < schedule_end && (!opt.limit || (long)nreqs < opt.limit);
        while (scheduling && next <= now) {
            reqs = grow(reqs, &reqs_cap, nreqs + 1, sizeof *reqs);
            reqs[nreqs] = (request_t){.scheduled = next, .conn = -1, .state = R_WAITING};
            if (counted((int64_t)nreqs)) scheduled_counted++;
            nreqs++;
            dispatch((int64_t)nreqs - 1);
            next += gap();
            scheduling = next < schedule_end && (!opt.limit || (long)nreqs < opt.limit);
        }
        expire(now);
        drain_pending();
        if (!scheduling) {
            if (cursor >= nreqs) break;
            /* Every request has its time-out; this only guards against a bug here. */
            if (give_up == INT64_MAX) give_up = now + (int64_t)opt.timeout_ms * 1000000 + 2000000000;
            if (now > give_up) break;
        }
        int64_t wake = scheduling ? next : INT64_MAX;
        for (size_t i = cursor; i < nreqs; i++) {
            if (reqs[i].state == R_DONE) continue;
            int64_t deadline = reqs[i].scheduled + (int64_t)opt.timeout_ms * 1000000;
            if (deadline < wake) wake = deadline;
            break;
        }
        struct timespec ts = {0, 0};
        if (wake > now) {
            int64_t wait = wake - now;
            if (wait > 100000000) wait = 100000000;
            ts.tv_sec = wait / 1000000000;
            ts.tv_nsec = wait % 1000000000;
        }
        int n = epoll_pwait2(ep, events, 512, &ts, NULL);
        for (int i = 0; i < n; i++) {
            conn_t *c = &conns[(uint32_t)events[i].data.u64];
            /* Closed, or closed and reopened, by an earlier event of this batch. */
            if (c->state == C_FREE || event_key(c) != events[i].data.u64) continue;
            on_event(c, events[i].events);
        }
        drain_pending();
    }
    for (size_t i = cursor; i < nreqs; i++)
        if (reqs[i].state != R_DONE && counted((int64_t)i)) unfinished++;
    int64_t wall = now_ns() - t0;
    getrusage(RUSAGE_SELF, &after);
    double cpu = (after.ru_utime.tv_sec - before.ru_utime.tv_sec) + (after.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6 +
                 (after.ru_stime.tv_sec - before.ru_stime.tv_sec) + (after.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6;
    double window = opt.limit ? (last_send - first_send) / 1e9 : opt.seconds;
    double spread = (last_send - first_send) / 1e9;

    printf("{\"label\":\"%s\",\"offered_rate\":%.1f,\"seconds\":%.3f,\"warmup\":%.3f,\"scheduled\":%ld,\"sent\":%ld,",
           opt.label, opt.rate, window, opt.limit ? 0.0 : opt.warmup, scheduled_counted, sent_counted);
    printf("\"scheduled_rate\":%.1f,\"send_rate\":%.1f,", window > 0 ? scheduled_counted / window : 0.0,
           spread > 0 && sent_counted > 1 ? (sent_counted - 1) / spread : 0.0);
    printf("\"statuses\":{");
    int comma = 0;
    for (int s = 0; s < 600; s++)
        if (statuses[s]) { printf("%s\"%d\":%ld", comma ? "," : "", s, statuses[s]); comma = 1; }
    printf("},\"kinds\":{");
    for (int k = 0; k < K_COUNT; k++) printf("%s\"%s\":%ld", k ? "," : "", KIND_NAMES[k], kinds[k]);
    printf("},\"retry_after\":{\"with\":%ld,\"without\":%ld},", with_ra, without_ra);
    printf("\"latency_ms\":{");
    for (int k = 0; k < K_COUNT; k++) print_samples(KIND_NAMES[k], &lat[k], 1);
    print_samples("all", &lat_all, 1);
    print_samples("503_retry_after", &lat_503_ra, 0);
    printf("},");
    print_samples("send_lag_ms", &lag, 1);
    printf("\"errors\":{\"connect\":%ld,\"reset\":%ld,\"parse\":%ld},\"unfinished\":%ld,", connect_errors, reset_errors,
           parse_errors, unfinished);
    printf("\"connections\":{\"opened\":%ld,\"max_open\":%d,\"cap\":%d,\"cap_hits\":%ld,\"stale_retries\":%ld},",
           opened, max_open, opt.max_conns, cap_hits, stale_retries);
    printf("\"cpu\":{\"seconds\":%.3f,\"wall\":%.3f,\"share\":%.4f}}\n", cpu, wall / 1e9, wall > 0 ? cpu / (wall / 1e9) : 0.0);
    return 0;
}
