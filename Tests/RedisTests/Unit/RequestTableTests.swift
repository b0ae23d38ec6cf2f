@testable import Redis
import Testing

@Suite("Request table")
struct RequestTableTests {
    static func id(_ value: UInt64) -> RedisRequestID { RedisRequestID(value) }

    @Test func valuesTakenInOrderComeBackOnceEach() {
        var table = RequestTable<String>()
        #expect(table.isEmpty)
        for n in 10..<15 { table.file("v\(n)", under: Self.id(UInt64(n))) }
        #expect(!table.isEmpty)
        for n in 10..<15 {
            #expect(table.take(Self.id(UInt64(n))) == "v\(n)")
            #expect(table.take(Self.id(UInt64(n))) == nil)
        }
        #expect(table.isEmpty)
    }

    @Test func aValueTakenOutOfOrderLeavesTheOthersWhereTheyWere() {
        var table = RequestTable<Int>()
        for n in 0..<6 { table.file(n, under: Self.id(UInt64(n))) }
        #expect(table.take(Self.id(3)) == 3)
        #expect(table.take(Self.id(0)) == 0)
        #expect(table.take(Self.id(1)) == 1)
        #expect(table.take(Self.id(3)) == nil)
        #expect(table.take(Self.id(2)) == 2)
        // Filing goes on after a hole at the front closed.
        table.file(6, under: Self.id(6))
        #expect(table.take(Self.id(5)) == 5)
        #expect(table.take(Self.id(4)) == 4)
        #expect(table.take(Self.id(6)) == 6)
        #expect(table.isEmpty)
    }

    @Test func idsNeverFiledOrOutsideTheWindowFindNothing() {
        var table = RequestTable<Int>()
        #expect(table.take(Self.id(0)) == nil)
        table.file(1, under: Self.id(5))
        // An id skipped when filing (none was filed under it) is a hole, not a value.
        table.file(2, under: Self.id(8))
        #expect(table.take(Self.id(4)) == nil)
        #expect(table.take(Self.id(6)) == nil)
        #expect(table.take(Self.id(9)) == nil)
        #expect(table.take(Self.id(8)) == 2)
        #expect(!table.isEmpty)
        #expect(table.take(Self.id(5)) == 1)
        #expect(table.isEmpty)
        // Empty, it starts again from any later id.
        table.file(3, under: Self.id(100))
        #expect(table.take(Self.id(100)) == 3)
    }

    @Test func aLongRunWithOneOldValueKeepsEveryValueReachable() {
        var table = RequestTable<UInt64>()
        table.file(0, under: Self.id(0))
        var next: UInt64 = 1
        for _ in 0..<1_000 {
            table.file(next, under: Self.id(next))
            #expect(table.take(Self.id(next)) == next)
            next += 1
        }
        #expect(table.take(Self.id(0)) == 0)
        #expect(table.isEmpty)
        // Spent slots are dropped as the front moves on: the values stay where their ids say.
        for n in next..<next + 200 { table.file(n, under: Self.id(n)) }
        for n in next..<next + 200 { #expect(table.take(Self.id(n)) == n) }
        #expect(table.isEmpty)
    }

    @Test func valuesLeftAfterTheSpentSlotsAreDroppedStayReachable() {
        var table = RequestTable<UInt64>()
        for n in UInt64(0)..<100 { table.file(n, under: Self.id(n)) }
        for n in UInt64(0)..<80 { #expect(table.take(Self.id(n)) == n) }
        table.file(100, under: Self.id(100))
        for n in UInt64(80)...100 { #expect(table.take(Self.id(n)) == n) }
        #expect(table.take(Self.id(79)) == nil)
        #expect(table.isEmpty)
    }
}
