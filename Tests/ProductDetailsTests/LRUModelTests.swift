import PureTestSupport
import Testing
@testable import ProductDetails

/// Random operations on the O(1) linked LRU checked against a naive array model.
struct LRUModelTests {
    @Test(arguments: [1, 2, 3, 42, 2024] as [UInt64])
    func matchesANaiveModel(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var entries = LRUEntries<Int, Int>()
        var model: [(key: Int, cost: Int)] = []  // most recently used first
        for _ in 0..<5_000 {
            let key = Int.random(in: 0..<20, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let cost = Int.random(in: 1...9, using: &random)
                entries.insert(CacheEntry(key: key, value: key, cost: cost, storedAt: .zero, freshFor: .zero, staleIfError: .zero, staleWhileRevalidate: .zero))
                model.removeAll { $0.key == key }
                model.insert((key, cost), at: 0)
            case 1:
                let touched = entries.touch(key)
                if let index = model.firstIndex(where: { $0.key == key }) {
                    #expect(touched?.key == key)
                    model.insert(model.remove(at: index), at: 0)
                } else {
                    #expect(touched == nil)
                }
            case 2:
                let removed = entries.remove(key)
                #expect((removed != nil) == model.contains { $0.key == key })
                model.removeAll { $0.key == key }
            default:
                let oldest = entries.removeOldest()
                #expect(oldest?.key == model.last?.key)
                if !model.isEmpty { model.removeLast() }
            }
            #expect(entries.count == model.count)
            #expect(entries.totalCost == model.reduce(0) { $0 + $1.cost })
        }
        #expect(entries.keysByRecency == model.map(\.key))
    }
}
