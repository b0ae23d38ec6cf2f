@testable import App
import Testing

@Suite struct UpstreamConnectivityTests {
    @Test func changesAreReportedAtMostOncePerIntervalWithTheFlappingCounted() {
        let connectivity = UpstreamConnectivity(minimumInterval: .seconds(10))
        let start = Duration.seconds(100)
        #expect(connectivity.note(unreachableBecause: nil, now: start) == nil)
        #expect(connectivity.note(unreachableBecause: "refused", now: start) == .init(reachable: false, cause: "refused", changesHeldBack: 0))
        #expect(connectivity.note(unreachableBecause: "refused", now: start + .seconds(1)) == nil)
        // Back, down, back within the interval: nothing now.
        #expect(connectivity.note(unreachableBecause: nil, now: start + .seconds(2)) == nil)
        #expect(connectivity.note(unreachableBecause: "reset", now: start + .seconds(3)) == nil)
        #expect(connectivity.note(unreachableBecause: nil, now: start + .seconds(4)) == nil)
        // After it, the next call reports where things stand and the changes in between.
        #expect(connectivity.note(unreachableBecause: nil, now: start + .seconds(11)) == .init(reachable: true, cause: nil, changesHeldBack: 2))
        #expect(connectivity.note(unreachableBecause: nil, now: start + .seconds(30)) == nil)
    }
}
