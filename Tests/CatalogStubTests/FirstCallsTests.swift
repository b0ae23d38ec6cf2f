import Testing
@testable import CatalogStub

/// The memory behind the slow-first-call fault: which ids it picks, that it picks each only once
/// per route, its bound, and forgetting.
@Suite struct FirstCallsTests {
    @Test func picksEveryNthCatalogIdOncePerRoute() {
        let calls = FirstCalls()
        let picked = (1...20).filter { calls.isSlowFirstCall(on: .product, id: "p\($0)", every: 5) }
        #expect(picked == [5, 10, 15, 20])
        #expect(!calls.isSlowFirstCall(on: .product, id: "p5", every: 5))
        #expect(calls.isSlowFirstCall(on: .reviews, id: "p5", every: 5))
        // Ids past the catalog's end keep their number.
        #expect(calls.isSlowFirstCall(on: .product, id: "p2000000", every: 5))
        #expect(calls.count == 6)
    }

    @Test func otherIdsUseTheirFNV1aHash() {
        #expect(FirstCalls.fnv1a("") == 0xCBF2_9CE4_8422_2325)
        #expect(FirstCalls.fnv1a("a") == 0xAF63_DC4C_8601_EC8C)
        let calls = FirstCalls()
        // 0x…EC8C is even, 0x…F1A5 odd; "p05" is not canonical, so it is hashed too.
        #expect(calls.isSlowFirstCall(on: .product, id: "a", every: 2))
        #expect(!calls.isSlowFirstCall(on: .product, id: "b", every: 2))
        #expect(calls.isSlowFirstCall(on: .product, id: "p05", every: 2) == FirstCalls.fnv1a("p05").isMultiple(of: 2))
    }

    @Test func offPicksNothingAndRemembersNothing() {
        let calls = FirstCalls()
        #expect(!calls.isSlowFirstCall(on: .product, id: "p5", every: 0))
        #expect(!calls.isSlowFirstCall(on: .product, id: "p3", every: 5))
        #expect(calls.count == 0)
    }

    @Test func theOldestIsForgottenPastTheBound() {
        let calls = FirstCalls(capacity: 2)
        for id in ["p1", "p2", "p3"] {
            #expect(calls.isSlowFirstCall(on: .product, id: id, every: 1))
        }
        #expect(calls.count == 2)
        #expect(!calls.isSlowFirstCall(on: .product, id: "p3", every: 1))
        #expect(calls.isSlowFirstCall(on: .product, id: "p1", every: 1))
        // p1 took p2's slot.
        #expect(calls.isSlowFirstCall(on: .product, id: "p2", every: 1))
        #expect(calls.count == 2)
    }

    @Test func forgetMakesEveryCallFirstAgain() {
        let calls = FirstCalls()
        #expect(calls.isSlowFirstCall(on: .suggested, id: "p7", every: 7))
        calls.forget()
        #expect(calls.count == 0)
        #expect(calls.isSlowFirstCall(on: .suggested, id: "p7", every: 7))
    }
}
