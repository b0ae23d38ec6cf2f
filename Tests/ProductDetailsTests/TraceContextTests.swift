import Testing
@testable import ProductDetails

/// W3C Trace Context, `traceparent` and `tracestate` (https://www.w3.org/TR/trace-context/).
struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aValidTraceparentIsRead() throws {
        let context = try #require(TraceContext.parse(traceparent: Self.valid, tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"))
        #expect(context.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.parentID == "00f067aa0ba902b7")
        #expect(context.sampled)
        #expect(context.traceState == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        #expect(TraceContext.parse(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", tracestate: nil)?.sampled == false)
    }

    @Test(arguments: [
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",          // no flags
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",       // upper case
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",       // zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",       // zero parent id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",       // version ff
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", // version 00 is 55 long
        "00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01",       // dashes misplaced
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",       // not hex
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",      // later version, no dash after
    ])
    func aMalformedTraceparentIsIgnoredWithItsTracestate(_ traceparent: String) {
        #expect(TraceContext.parse(traceparent: traceparent, tracestate: "rojo=1") == nil)
    }

    @Test func aLaterVersionIsReadForTheFieldsItShares() throws {
        let context = try #require(TraceContext.parse(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03-what-ever", tracestate: nil))
        #expect(context.sampled)
        #expect(context.traceparent == Self.valid)
    }

    @Test func anAbsentTraceparentIsNoContext() {
        #expect(TraceContext.parse(traceparent: nil, tracestate: "rojo=1") == nil)
    }

    @Test func aChildKeepsTheTraceFlagAndStateWithANewSpan() throws {
        let parent = try #require(TraceContext.parse(traceparent: Self.valid, tracestate: "rojo=1"))
        let child = parent.child { 0xabc }
        #expect(child.traceID == parent.traceID)
        #expect(child.parentID == "0000000000000abc")
        #expect(child.sampled)
        #expect(child.traceState == "rojo=1")
        #expect(child.traceparent == "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000abc-01")
        var written: [UInt8] = []
        child.withTraceparent { written = Array($0) }
        #expect(written == Array(child.traceparent.utf8))
    }

    @Test func aNewTraceIsUnsampledWithRandomIDs() {
        var values: [UInt64] = [0x1, 0xfedcba9876543210, 0x2]
        let context = TraceContext.start { values.removeFirst() }
        #expect(context.traceID == "0000000000000001fedcba9876543210")
        #expect(context.parentID == "0000000000000002")
        #expect(!context.sampled)
        #expect(TraceContext.parse(traceparent: context.traceparent, tracestate: nil) == context)
    }

    /// Ids come from a keyed bijective mix of a counter: never zero, never repeated, and not in
    /// counting order.
    @Test func newIDsAreDistinctNonZeroAndScattered() {
        let ids = (0..<100_000).map { _ in TraceIdentifiers.next() }
        #expect(!ids.contains(0))
        #expect(Set(ids).count == ids.count)
        let increasing = zip(ids, ids.dropFirst()).filter { $0 < $1 }.count
        #expect((40_000...60_000).contains(increasing), "about half the steps go up, as for random values")
        let context = TraceContext.start()
        #expect(context.traceID.count == 32 && context.parentID.count == 16)
        #expect(TraceContext.parse(traceparent: context.traceparent, tracestate: nil) == context)
    }
}
