import EventLoop
import Synchronization
import Testing

/// Counts the values released.
private final class Releases: Sendable {
    let count = Atomic<Int>(0)
}

private final class Tracked: Sendable {
    let loopIndex: Int
    let releases: Releases?

    init(loopIndex: Int, releases: Releases? = nil) {
        self.loopIndex = loopIndex
        self.releases = releases
    }

    deinit {
        releases?.count.wrappingAdd(1, ordering: .relaxed)
    }
}

@Suite("Loop-local values")
struct LoopLocalTests {
    /// Each loop's value is made once, on first use, on that loop; `existing` sees it only then;
    /// another loop's slot stays empty.
    @Test func eachLoopMakesItsValueOnceOnFirstUse() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let local = LoopLocal<Tracked>(group: group)
        let first = group.loops[0]
        let seen = await Task(executorPreference: first) { () -> [Bool] in
            let before = local.existing(on: first) == nil
            var makes = 0
            let made = local.value(on: first) { makes += 1; return Tracked(loopIndex: first.index) }
            let again = local.value(on: first) { makes += 1; return Tracked(loopIndex: -1) }
            return [before, made === again, makes == 1, local.existing(on: first) === made, made.loopIndex == first.index]
        }.value
        #expect(seen == [true, true, true, true, true])
        let second = group.loops[1]
        let untouched = await Task(executorPreference: second) { local.existing(on: second) == nil }.value
        #expect(untouched)
    }

    /// The values made are released with the loop-local, once each; slots never made are left
    /// alone.
    @Test func theValuesMadeAreReleasedWithIt() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let releases = Releases()
        let local = LoopLocal<Tracked>(group: group)
        let loop = group.loops[1]
        let made = await Task(executorPreference: loop) { () -> Bool in
            local.value(on: loop) { Tracked(loopIndex: loop.index, releases: releases) }.loopIndex == loop.index
        }.value
        #expect(made)
        #expect(releases.count.load(ordering: .relaxed) == 0)
        _ = consume local
        #expect(releases.count.load(ordering: .relaxed) == 1)
    }
}
