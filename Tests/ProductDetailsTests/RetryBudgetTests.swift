import Testing
@testable import ProductDetails
import Timekeeping

struct RetryBudgetTests {
    /// Withdraws one retry at each of `times`, returning which were granted.
    private func withdraw(_ window: inout RetryBudgetWindow, at times: [Duration]) -> [Bool] {
        times.map { window.tryWithdrawRetry(at: $0) }
    }

    @Test func theFloorAllowsRetriesWithoutTraffic() {
        var window = RetryBudgetWindow(limits: .init(window: .seconds(10), bucketCount: 10, ratio: 0.2, floor: 3))
        let granted = withdraw(&window, at: [.zero, .zero, .zero, .zero])
        #expect(granted == [true, true, true, false])
    }

    @Test func theRatioAddsRetriesPerRequestOnceTheFloorIsSpent() {
        var window = RetryBudgetWindow(limits: .init(ratio: 0.2, floor: 2))
        for _ in 0..<10 { window.recordRequest(at: .zero) }  // 2 (floor) + 0.2 × 10 = 4
        let granted = withdraw(&window, at: Array(repeating: .zero, count: 10))
        #expect(granted.filter { $0 }.count == 4)
        for _ in 0..<5 { window.recordRequest(at: .zero) }  // + 1
        let more = withdraw(&window, at: [.zero, .zero])
        #expect(more == [true, false])
        #expect(window.totals(at: .zero) == (requests: 15, retries: 5))
    }

    @Test func oldBucketsSlideOutOfTheWindow() {
        var window = RetryBudgetWindow(limits: .init(window: .seconds(10), bucketCount: 10, ratio: 0, floor: 2))
        let granted = withdraw(&window, at: [.zero, .seconds(5), .milliseconds(9_999), .seconds(10), .seconds(14)])
        // The first retry's bucket (0 s..1 s) leaves the window at 10 s.
        #expect(granted == [true, true, false, true, false])
        #expect(window.totals(at: .seconds(14)) == (requests: 0, retries: 2))
        #expect(window.totals(at: .seconds(30)) == (requests: 0, retries: 0))
    }

    @Test func theLockedBudgetReadsItsTimeSource() {
        let time = ManualTimeSource()
        let budget = RetryBudget(limits: .init(ratio: 0, floor: 1), time: time)
        budget.recordRequest()
        #expect(budget.tryWithdrawRetry())
        #expect(!budget.tryWithdrawRetry())
        time.advance(by: .seconds(11))
        #expect(budget.tryWithdrawRetry())
        #expect(budget.totals == (requests: 0, retries: 1))
    }
}
