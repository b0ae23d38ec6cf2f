import RESP
import Redis

typealias SubscriberMachine = RedisSubscriberStateMachine

let subscriberConfiguration = RedisSubscriberConfiguration(
    connectTimeout: .seconds(1),
    pingInterval: .seconds(1),
    pingTimeout: ms(500),
    backoff: ReconnectBackoff(base: ms(100), cap: .seconds(1)))

/// A subscriber to `pd:inv` and `pd:all` whose jitter draws the top of each range.
func subscriberMachine(_ url: RedisURL = plainURL) -> SubscriberMachine {
    SubscriberMachine(url: url, channels: ["pd:inv", "pd:all"], configuration: subscriberConfiguration, random: FixedRandom(value: .max))
}

let subscribeCommand = encoded(RESPCommand("SSUBSCRIBE", "pd:inv", "pd:all"))
let pingCommand = encoded(RESPCommand("PING"))
/// RESP2's answer to PING in subscribed mode.
let pongReply = wire("*2\r\n$4\r\npong\r\n$0\r\n\r\n")

func confirmation(_ channel: String, count: Int) -> [UInt8] {
    wire("*3\r\n$10\r\nssubscribe\r\n$\(channel.utf8.count)\r\n\(channel)\r\n:\(count)\r\n")
}

func message(_ channel: String, _ payload: String) -> [UInt8] {
    wire("*3\r\n$8\r\nsmessage\r\n$\(channel.utf8.count)\r\n\(channel)\r\n$\(payload.utf8.count)\r\n\(payload)\r\n")
}

/// Both channels confirmed.
let bothConfirmed = confirmation("pd:inv", count: 1) + confirmation("pd:all", count: 2)

/// A subscriber on `plainURL` that connected, passed the access check and subscribed at `now`.
func subscribedMachine(at now: Duration = .zero) -> SubscriberMachine {
    var machine = subscriberMachine()
    _ = machine.start(now: now)
    _ = machine.connected(now: now)
    _ = machine.received(accessGranted + bothConfirmed, now: now)
    return machine
}
