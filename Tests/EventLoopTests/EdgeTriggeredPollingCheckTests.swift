@testable import EventLoop
import Testing

/// The start-up check of edge-triggered polling, on this machine (where it must pass) and with
/// each half of the interposer bypassed (where it must fail, naming the half).
@Suite("Edge-triggered polling check")
struct EdgeTriggeredPollingCheckTests {
    @Test func passesOnEveryLoopHere() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        #expect(await EdgeTriggeredPollingCheck.run(on: group) == .passed)
        // Again: the probe closed what it opened and left nothing marked behind.
        #expect(await EdgeTriggeredPollingCheck.run(on: group) == .passed)
    }

    @Test(arguments: [
        (EpollInterposerBypass.registrations, "epoll_ctl"),
        (EpollInterposerBypass.reports, "epoll_wait"),
        (EpollInterposerBypass([.registrations, .reports]), "epoll_ctl"),
    ])
    func failsNamingTheHalfThatDidNotRun(bypass: EpollInterposerBypass, names function: String) async throws {
        let group = try EventLoopGroup(loopCount: 2, bypassing: bypass)
        defer { group.shutdown() }
        let outcome = await EdgeTriggeredPollingCheck.run(on: group)
        guard case .failed(let reason) = outcome else {
            Issue.record("the check passed with \(bypass) bypassed")
            return
        }
        #expect(reason.hasPrefix("loop 0: "))
        #expect(reason.contains(function), "\(reason)")
    }
}
