@testable import Fleet
@testable import ProductDetails
import Testing

@Suite("Shared-cache time budget")
struct SharedTimeBudgetTests {
    @Test func everyCommandDrawsOnOneBudgetAndPausesDoNot() {
        var budget = SharedTimeBudget(.milliseconds(250))
        #expect(budget.deadline(now: .seconds(10)) == .seconds(10) + .milliseconds(250))
        budget.charge(from: .seconds(10), to: .seconds(10) + .milliseconds(200))
        // A pause of a second between looks costs nothing.
        #expect(budget.deadline(now: .seconds(11)) == .seconds(11) + .milliseconds(50))
        budget.charge(from: .seconds(11), to: .seconds(11) + .milliseconds(50))
        #expect(budget.deadline(now: .seconds(12)) == nil)
    }

    @Test func aClockThatDidNotMoveChargesNothing() {
        var budget = SharedTimeBudget(.milliseconds(1))
        budget.charge(from: .seconds(2), to: .seconds(1))
        #expect(budget.left == .milliseconds(1))
    }
}
