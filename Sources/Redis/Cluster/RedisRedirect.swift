/// An error reply by which a Redis Cluster node says the command belongs elsewhere, or later.
package enum RedisRedirect: Sendable, Equatable {
    /// The slot lives on another node for good: send it there, and update the slot map.
    case moved(slot: Int, to: RedisNodeAddress)
    /// The slot is being migrated and this key already moved: send this one command there,
    /// preceded by `ASKING`; the slot map stays as it is.
    case ask(slot: Int, to: RedisNodeAddress)
    /// A multi-key command met a slot in migration, or a resharding is under way: try again soon.
    case tryAgain
    /// The cluster cannot serve (a slot uncovered, or no majority): try again soon.
    case clusterDown

    /// Reads an error reply's text; `nil` for any other error (a script's, a wrong type).
    package init?(errorMessage: String) {
        let words = errorMessage.split(separator: " ", omittingEmptySubsequences: false)
        guard let first = words.first else { return nil }
        switch first {
        case "MOVED", "ASK":
            guard words.count == 3, let slot = Int(words[1]), (0..<RedisHashSlot.count).contains(slot),
                  let address = RedisNodeAddress(endpoint: words[2])
            else { return nil }
            self = first == "MOVED" ? .moved(slot: slot, to: address) : .ask(slot: slot, to: address)
        case "TRYAGAIN":
            self = .tryAgain
        case "CLUSTERDOWN":
            self = .clusterDown
        default:
            return nil
        }
    }

    /// The label of the redirect metrics.
    package var label: String {
        switch self {
        case .moved: "moved"
        case .ask: "ask"
        case .tryAgain: "tryagain"
        case .clusterDown: "clusterdown"
        }
    }
}
