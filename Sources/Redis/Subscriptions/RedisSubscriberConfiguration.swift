import RESP

/// The settings of the subscriber connection, with the defaults the service starts from.
package struct RedisSubscriberConfiguration: Sendable, Equatable {
    /// From the connect request until every channel is confirmed. 1 s, as for commands: a
    /// connect and `SUBSCRIBE` take about a millisecond on a LAN.
    package var connectTimeout: Duration
    /// How long after the last `PONG` (or the subscription) the next `PING` goes out. 1 s:
    /// a subscriber receives nothing while nobody invalidates, so without it a silently dead
    /// connection (frozen server, lost network) would go unnoticed, and its replica would miss
    /// invalidations at full L1 freshness. Once a second per replica costs Redis nothing.
    package var pingInterval: Duration
    /// How long a `PING` may wait for its `PONG` before the connection is closed and reopened.
    /// 1 s: with the interval, a dead connection is noticed within about 2 s, inside the few
    /// seconds a replica may serve a page invalidated elsewhere; a healthy server answers in
    /// well under a millisecond, and a reconnect costs the replica its whole L1 (dropped on
    /// every subscription), so the limit stays clear of brief server pauses.
    package var pingTimeout: Duration
    package var backoff: ReconnectBackoff
    package var replyLimits: RESPLimits

    package init(
        connectTimeout: Duration = .seconds(1),
        pingInterval: Duration = .seconds(1),
        pingTimeout: Duration = .seconds(1),
        backoff: ReconnectBackoff = ReconnectBackoff(),
        replyLimits: RESPLimits = RESPLimits()
    ) {
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.backoff = backoff
        self.replyLimits = replyLimits
    }
}
