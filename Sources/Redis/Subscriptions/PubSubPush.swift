import RESP

/// The replies a RESP2 connection subscribed to shard channels (`SSUBSCRIBE`) receives, each an
/// array whose first element names its kind.
enum PubSubPush: Sendable, Equatable {
    /// `["ssubscribe", channel, count]`: one channel of an `SSUBSCRIBE` is active.
    case subscribeConfirmed(channel: String)
    /// `["smessage", channel, payload]`: an `SPUBLISH` to a subscribed channel.
    case message(channel: String, payload: [UInt8])
    /// `["sunsubscribe", channel, count]` that nothing asked for: the channel's slot left this
    /// node (a reshard, or a failover made it a replica). Messages are missed from now on.
    case unsubscribedByServer(channel: String)
    /// `["pong", ""]`: the answer to `PING` in subscribed mode.
    case pong

    /// `nil` for any other reply (kinds this client never asks for, such as `pmessage`).
    init?(_ reply: RESPValue) {
        guard let elements = reply.elements, let kind = elements.first?.string else { return nil }
        switch (kind, elements.count) {
        case ("ssubscribe", 3):
            guard let channel = elements[1].string else { return nil }
            self = .subscribeConfirmed(channel: channel)
        case ("sunsubscribe", 3):
            guard let channel = elements[1].string else { return nil }
            self = .unsubscribedByServer(channel: channel)
        case ("smessage", 3):
            guard let channel = elements[1].string, let payload = elements[2].bulkBytes else { return nil }
            self = .message(channel: channel, payload: payload)
        case ("pong", 2):
            self = .pong
        default:
            return nil
        }
    }
}
