/// A new cluster map, as the log line tells it.
package struct RedisTopologyChange: Sendable, Equatable {
    package let masters: [RedisNodeAddress]
    package let uncoveredSlots: Int

    package init(masters: [RedisNodeAddress], uncoveredSlots: Int) {
        self.masters = masters
        self.uncoveredSlots = uncoveredSlots
    }
}
