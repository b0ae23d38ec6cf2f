import PureTestSupport
import RESP
@testable import Redis
import Testing

@Suite("Pending queue: the earliest live deadline, kept as commands come and go")
struct PendingQueueTests {
    private static func command(_ id: UInt64, deadline: Duration) -> PendingCommand {
        PendingCommand(id: RedisRequestID(id), request: .command(RESPCommand("GET", "k")), deadline: deadline, writtenAt: .zero)
    }

    @Test func theEarliestFollowsDeadlinesInAnyOrderAsTheOldestLeave() {
        var queue = PendingQueue()
        #expect(queue.earliestLiveDeadline == nil && !queue.hasLiveCommands)
        for (id, deadline) in [(1, 500), (2, 300), (3, 700), (4, 300), (5, 900)] {
            queue.append(Self.command(UInt64(id), deadline: ms(deadline)))
        }
        #expect(queue.earliestLiveDeadline == ms(300))
        for expected in [300, 300, 300, 900] {
            _ = queue.popFirst()
            #expect(queue.earliestLiveDeadline == ms(expected))
        }
        _ = queue.popFirst()
        #expect(queue.earliestLiveDeadline == nil && !queue.hasLiveCommands && queue.isEmpty)
    }

    /// A later, earlier-due command stands for the ones before it; when its caller goes, they
    /// count again.
    @Test func abandoningTheCommandOthersWereDroppedForBringsThemBack() {
        var queue = PendingQueue()
        queue.append(Self.command(1, deadline: ms(500)))
        queue.append(Self.command(2, deadline: ms(400)))
        queue.append(Self.command(3, deadline: ms(300)))
        let third = queue.abandon(RedisRequestID(3))
        #expect(third)
        #expect(queue.earliestLiveDeadline == ms(400))
        let expired = queue.abandonExpired(now: ms(450))
        #expect(expired == [RedisRequestID(2)])
        #expect(queue.earliestLiveDeadline == ms(500) && queue.hasLiveCommands)
        let first = queue.abandon(RedisRequestID(1))
        #expect(first)
        #expect(queue.earliestLiveDeadline == nil && !queue.hasLiveCommands)
        // The abandoned slots still wait for their replies, in order.
        #expect(queue.count == 3)
    }

    /// Random appends, replies, cancellations, expiries and resets, checked at every step
    /// against a plain scan of what the queue holds.
    @Test(arguments: [1, 2, 3, 4]) func agreesWithAScanOverEverySequenceOfEvents(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var queue = PendingQueue()
        var model: [(id: UInt64, deadline: Duration, abandoned: Bool)] = []
        var nextID: UInt64 = 1
        var now = Duration.zero
        for _ in 0..<5_000 {
            now += .microseconds(Int64(random.next() % 50))
            switch random.next() % 100 {
            case 0..<45:
                // Deadlines mostly in order, as callers with one timeout make them; some not.
                let deadline = now + .milliseconds(Int64(random.next() % 8 == 0 ? random.next() % 40 : 25))
                queue.append(Self.command(nextID, deadline: deadline))
                model.append((nextID, deadline, false))
                nextID += 1
            case 45..<85:
                let popped = queue.popFirst()
                #expect(popped?.id.value == model.first?.id)
                if !model.isEmpty { model.removeFirst() }
            case 85..<93:
                guard !model.isEmpty else { continue }
                let index = Int(random.next() % UInt64(model.count))
                let abandoned = queue.abandon(RedisRequestID(model[index].id))
                #expect(abandoned == !model[index].abandoned)
                model[index].abandoned = true
            case 93..<99:
                let expired = queue.abandonExpired(now: now).map(\.value)
                var expected: [UInt64] = []
                for index in model.indices where !model[index].abandoned && model[index].deadline <= now {
                    model[index].abandoned = true
                    expected.append(model[index].id)
                }
                #expect(expired == expected)
            default:
                let waiting = queue.removeAll().map(\.value)
                #expect(waiting == model.filter { !$0.abandoned }.map(\.id))
                model.removeAll()
            }
            let live = model.filter { !$0.abandoned }
            #expect(queue.earliestLiveDeadline == live.map(\.deadline).min())
            #expect(queue.hasLiveCommands == !live.isEmpty)
            #expect(queue.count == model.count)
        }
    }
}
