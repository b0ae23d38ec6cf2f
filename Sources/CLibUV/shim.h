#ifndef PRODUCT_DETAILS_CLIBUV_SHIM_H
#define PRODUCT_DETAILS_CLIBUV_SHIM_H

#include <uv.h>
#include <errno.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/// uv_loop_configure is variadic, which Swift cannot call: the one option we set, by name.
static inline int pd_measure_idle_time(uv_loop_t *loop) {
    return uv_loop_configure(loop, UV_METRICS_IDLE_TIME);
}

/// libuv 1.44 has no UV_TCP_REUSEPORT: set SO_REUSEPORT on the socket that
/// uv_tcp_init_ex created, before bind, so each loop can listen on the port.
static inline int pd_set_reuseport(uv_tcp_t *tcp) {
    uv_os_fd_t fd;
    int rc = uv_fileno((uv_handle_t *)tcp, &fd);
    if (rc != 0) return rc;
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) != 0) return -errno;
    return 0;
}

/// The port a bound TCP handle listens on (host byte order), or a negative libuv error.
static inline int pd_tcp_local_port(const uv_tcp_t *tcp) {
    struct sockaddr_storage address;
    int length = sizeof(address);
    int rc = uv_tcp_getsockname(tcp, (struct sockaddr *)&address, &length);
    if (rc != 0) return rc;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return UV_EINVAL;
}

/// The length of a sockaddr as libuv's bind/connect expect it.
static inline const struct sockaddr *pd_sockaddr(const struct sockaddr_storage *storage) {
    return (const struct sockaddr *)storage;
}

#endif
