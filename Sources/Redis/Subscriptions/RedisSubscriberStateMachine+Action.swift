extension RedisSubscriberStateMachine {
    /// What the shell does, in the order given.
    public enum Action: Sendable, Equatable, RedisConnectionAction {
        /// Connect, write, close, or arm or disarm the one timer (spelled `.connect(host:port:)`,
        /// `.write(_:)`, `.close`, `.armTimer(at:)`, `.cancelTimer`).
        case socket(RedisSocketAction)
        /// Every channel is subscribed: from now on no message is missed. The owner drops its
        /// whole L1, since invalidations published while it was not subscribed are lost
        /// (`isResubscription` is false for the first subscription of the process). Before the
        /// first one, and from `disconnected` to the next, messages may be missed.
        case subscribed(isResubscription: Bool)
        /// A message published on one of the channels.
        case message(channel: String, payload: [UInt8])
        /// The subscription ended (messages may be missed from now on until `subscribed`);
        /// the next attempt is at `reconnectAt`, or never (`nil`).
        case disconnected(RedisClientError, reconnectAt: Duration?)
        /// An attempt failed before every channel was subscribed; the next is at
        /// `reconnectAt`, or never (`nil`: credentials refused, or shut down).
        case connectAttemptFailed(RedisClientError, reconnectAt: Duration?)

        public var socketAction: RedisSocketAction? {
            if case .socket(let action) = self { return action }
            return nil
        }
    }
}
