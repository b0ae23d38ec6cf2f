import Locking
@testable import ProductDetails
import TestSupport
import Testing
import Timekeeping

/// A request's first look at the shared cache taken on its event loop with no task
/// (``ProductDetailsService/firstLook(_:completion:)``): a shared-cache hit answered through the
/// callback, anything else handed to the load with the look already taken.
@Suite("A shared look without a task")
struct SharedLookWithoutTaskTests {
    /// What a replica's look gave: `nil` when it took none; else what its callback was given
    /// (the in-memory store answers before the look returns).
    static func look(_ replica: ProductDetailsService, _ id: String, noCache: Bool = false) throws -> DetailLookup? {
        guard case .pending(let pending) = replica.lookUpDetail(id: id, noCache: noCache) else {
            Issue.record("\(id) is in L1")
            return nil
        }
        let given = Locked<DetailLookup?>(nil)
        guard replica.firstLook(pending, completion: { lookup in given.withLock { $0 = lookup } }) != nil else { return nil }
        let lookup: DetailLookup? = given.withLock { $0 }
        let answered: DetailLookup = try #require(lookup, "the in-memory store answers before the look returns")
        return answered
    }

    @Test func aPageInTheSharedCacheIsAnsweredThroughTheCallbackAsTheLoadItSpares() async throws {
        let fleet = Replicas()
        let loader = await fleet.replica()
        _ = try await loader.detail(id: "p1")
        let reader = await fleet.replica()
        let loadsBefore = fleet.events.count("loadStarted")

        guard case .answered(let answer)? = try Self.look(reader, "p1") else {
            Issue.record("no answer through the callback")
            return
        }
        #expect(answer.document.status == 200)
        #expect(answer.cache.result == .miss)
        #expect(answer.cache.shared?.result == .hit)
        #expect(fleet.events.count("loadStarted") == loadsBefore + 1)
        #expect(fleet.events.count("loadFinished") == loadsBefore + 1)
        #expect(fleet.catalog.productPort.calls.count == 1, "answered from the shared cache, not loaded")
        // Kept in L1 as a shared-cache hit through a task would be.
        guard case .answered(let again) = reader.lookUpDetail(id: "p1") else {
            Issue.record("the shared page was not kept in L1")
            return
        }
        #expect(again.document.body == answer.document.body)
    }

    @Test func aLookThatFindsNothingHandsItsLookToTheLoadSoRedisIsNotAskedTwice() async throws {
        let fleet = Replicas()
        let viaCallback = await fleet.replica()
        let callsBefore = fleet.store.calls
        guard case .pending(let pending)? = try Self.look(viaCallback, "p2") else {
            Issue.record("nothing was shared yet, so the look must hand on")
            return
        }
        #expect(fleet.store.calls == callsBefore + 1)
        let answer = try await viaCallback.detail(after: pending)
        #expect(answer.cache.shared?.stored == true)
        let callbackCalls = fleet.store.calls - callsBefore

        // The same miss through a task alone, for another product: as many calls to the store.
        let viaTask = await fleet.replica()
        let taskBefore = fleet.store.calls
        _ = try await viaTask.detail(id: "p3")
        #expect(fleet.store.calls - taskBefore == callbackCalls)
    }

    @Test func noLookIsTakenForNoCacheAnInvalidIdOrAStoreThatAnswersOnlyInTasks() async throws {
        let fleet = Replicas()
        let replica = await fleet.replica()
        let calls = fleet.store.calls
        #expect(try Self.look(replica, "p4", noCache: true) == nil)
        #expect(try Self.look(replica, "bad id!") == nil)
        #expect(fleet.store.calls == calls)

        let taskOnly = Replicas(answersWithoutTask: false)
        let other = await taskOnly.replica()
        let before = taskOnly.store.calls
        #expect(try Self.look(other, "p4") == nil)
        #expect(taskOnly.store.calls == before)
        // The admission the refused look took was handed back: the breaker still lets calls go.
        #expect(other.sharedCache?.breakerState == .closed)
    }

    @Test func anOpenBreakerAnswersTheLookAtOnceWithoutAskingTheStore() async throws {
        let fleet = Replicas()
        let replica = await fleet.replica()
        fleet.store.fail(with: .unavailable("down"))
        for _ in 0..<fleet.shared.breakerFailures {
            guard case .pending? = try Self.look(replica, "p5") else {
                Issue.record("a failed look must hand on to the load")
                return
            }
        }
        #expect(replica.sharedCache?.breakerState == .open)
        let before = fleet.store.calls
        guard case .pending(let pending)? = try Self.look(replica, "p5") else {
            Issue.record("an open breaker must hand on to the load")
            return
        }
        #expect(fleet.store.calls == before)
        // The load goes on as a single node's: loaded from the upstreams, not shared.
        let answer = try await replica.detail(after: pending)
        #expect(answer.document.status == 200)
        #expect(fleet.store.calls == before)
    }
}
