import RESP

/// The replies a RESP2 connection in subscribed mode receives, each an array whose first
/// element names its kind.
enum PubSubPush: Sendable, Equatable {
    /// `["subscribe", channel, count]`: one channel of a `SUBSCRIBE` is active.
    case subscribeConfirmed(channel: String)
    /// `["message", channel, payload]`: a `PUBLISH` to a subscribed channel.
    case message(channel: String, payload: [UInt8])
    /// `["pong", ""]`: the answer to `PING` in subscribed mode.
    case pong

    /// `nil` for any other reply (kinds this client never asks for, such as `pmessage`).
    init?(_ reply: RESPValue) {
        guard let elements = reply.elements, let kind = elements.first?.string else { return nil }
        switch (kind, elements.count) {
        case ("subscribe", 3):
            guard let channel = elements[1].string else { return nil }
            self = .subscribeConfirmed(channel: channel)
        case ("message", 3):
            guard let channel = elements[1].string, let payload = elements[2].bulkBytes else { return nil }
            self = .message(channel: channel, payload: payload)
        case ("pong", 2):
            self = .pong
        default:
            return nil
        }
    }
}
