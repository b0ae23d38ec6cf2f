@testable import Redis
@testable import Fleet
import RESP
import Testing

/// The read every shared-cache hit is, written straight into its buffer: byte for byte the `GET` of the
/// page it replaces, routed to the slot of every key of its product.
@Suite("The peek request")
struct PeekRequestTests {
    @Test(arguments: ["p1", "a-very_long-product-id-0123456789-0123456789-0123456789-01234", "X"])
    func isTheGETOfThePage(id: String) throws {
        let keys = SharedCacheKeys(prefix: "pd:v6:")
        let request = RedisPageStore.peekRequest(id, keys)
        let command = RedisRequest.command(RESPCommand("GET", .string(keys.page(of: id))))
        var sent: [UInt8] = []
        request.encode(into: &sent)
        var expected: [UInt8] = []
        command.encode(into: &expected)
        #expect(sent == expected)
        #expect(request.leadingReplies == command.leadingReplies)
        let routingKey = try #require(request.routingKey)
        #expect(RedisHashSlot.of(argument: routingKey) == RedisHashSlot.of(keys.page(of: id)))
        #expect(RedisHashSlot.of(argument: routingKey) == RedisHashSlot.of(keys.generation(of: id)))
        #expect(RedisHashSlot.of(argument: routingKey) == RedisHashSlot.of(keys.lease(of: id)))
    }
}
