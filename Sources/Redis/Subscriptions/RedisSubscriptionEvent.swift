
/// What a `RedisSubscription` tells its owner, on its loop thread.
package enum RedisSubscriptionEvent: Sendable, Equatable {
    /// Every channel is subscribed: no message is missed from now on. A resubscription follows
    /// a time when messages may have been missed (pub/sub delivers at most once).
    case subscribed(isResubscription: Bool)
    /// A message published on one of the channels.
    case message(channel: String, payload: [UInt8])
    /// The subscription ended: messages may be missed until the next `subscribed`.
    case disconnected(RedisClientError)
}
