import Fleet
import ProductDetails
import Testing

struct InvalidationScopePayloadTests {
    @Test(arguments: [InvalidationScope.product("p1"), .product("ü-9"), .everything])
    func aScopeReadsBackFromItsPayload(_ scope: InvalidationScope) {
        #expect(InvalidationScope(payload: scope.payload) == scope)
    }

    @Test func thePayloadsAreTheChannelFormatOtherReleasesRead() {
        #expect(InvalidationScope.product("p1").payload == Array("p:p1".utf8))
        #expect(InvalidationScope.everything.payload == Array("*".utf8))
    }

    /// A newer release's message, or a broken one, is ignored rather than guessed at.
    @Test(arguments: [Array("".utf8), Array("p:".utf8), Array("**".utf8), Array("x:p1".utf8), [0x70, 0x3A, 0xFF]])
    func anUnknownPayloadIsNoScope(_ payload: [UInt8]) {
        #expect(InvalidationScope(payload: payload) == nil)
    }
}
