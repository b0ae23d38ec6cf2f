@testable import HTTPClient
import PureTestSupport
import Testing

/// The pool's rules, stepped with plain values: no sockets, no time.
@Suite("Connection pool state machine")
struct ConnectionPoolStateMachineTests {
    typealias Machine = ConnectionPoolStateMachine<String>

    @Test func opensUpToItsLimitThenRequestsWaitAndAreServedInArrivalOrder() {
        var pool = Machine(maxConnections: 2)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.acquire(2) == .connect)
        #expect(pool.connected("b") == .use)
        #expect(pool.acquire(3) == .wait)
        #expect(pool.acquire(4) == .wait)
        #expect(pool.open == 2)
        #expect(pool.released("b") == .hand(to: 3))
        #expect(pool.released("a") == .hand(to: 4))
        #expect(pool.released("b") == .park)
        #expect(pool.released("a") == .park)
        #expect(pool.waiting.isEmpty)
    }

    @Test func idleConnectionsAreReusedMostRecentFirst() {
        var pool = Machine(maxConnections: 3)
        for (request, connection) in [(1, "a"), (2, "b"), (3, "c")] {
            #expect(pool.acquire(request) == .connect)
            #expect(pool.connected(connection) == .use)
        }
        #expect(pool.released("b") == .park)
        #expect(pool.released("a") == .park)
        #expect(pool.released("c") == .park)
        #expect(pool.acquire(4) == .lease("c"))
        #expect(pool.acquire(5) == .lease("a"))
        #expect(pool.acquire(6) == .lease("b"))
        #expect(pool.acquire(7) == .wait, "all three are leased and the limit is reached")
    }

    /// A connection that began closing while idle (the server closed it, its idle time ran out)
    /// is never leased, and its place is free only once its socket is closed.
    @Test func aClosingIdleConnectionIsNeverLeasedAndItsPlaceFreesWhenClosed() {
        var pool = Machine(maxConnections: 1)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.released("a") == .park)
        pool.closing("a")
        #expect(pool.acquire(2) == .wait, "the socket still counts until it is closed")
        #expect(pool.closed("a") == 2, "a new connection for the request that waited")
        #expect(pool.open == 1)
        #expect(pool.connected("b") == .use)
    }

    @Test func aCancelledRequestIsSkipped() {
        var pool = Machine(maxConnections: 1)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.acquire(2) == .wait)
        #expect(pool.acquire(3) == .wait)
        pool.cancel(2)
        #expect(pool.released("a") == .hand(to: 3))
        pool.cancel(42)
        #expect(pool.released("a") == .park)
    }

    /// A drop (the upstream's breaker opened) fails the queue and nothing else: the connection
    /// in use comes back and parks, and requests after the drop are served as usual.
    @Test func droppingFailsTheWaitingRequestsOldestFirstAndLeavesTheConnections() {
        var pool = Machine(maxConnections: 2)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.acquire(2) == .connect, "still opening when the drop comes")
        for request in 3...5 { #expect(pool.acquire(request) == .wait) }
        #expect(pool.dropWaiting() == [3, 4, 5])
        #expect(pool.waiting.isEmpty)
        #expect(pool.open == 2, "the connection in use and the one opening keep their places")
        #expect(pool.connected("b") == .use)
        #expect(pool.released("a") == .park)
        #expect(pool.acquire(6) == .lease("a"))
        #expect(pool.acquire(7) == .wait)
        #expect(pool.released("b") == .hand(to: 7))
        #expect(pool.dropWaiting().isEmpty)
    }

    /// A dropped request is gone for good: a place freed later opens a connection for none.
    @Test func aPlaceFreedAfterADropOpensNothingForTheDroppedRequests() {
        var pool = Machine(maxConnections: 1)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.acquire(2) == .wait)
        #expect(pool.dropWaiting() == [2])
        #expect(pool.connectFailed() == nil)
        #expect(pool.open == 0)
        pool.cancel(2)
        #expect(pool.acquire(3) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.acquire(4) == .wait)
        #expect(pool.dropWaiting() == [4])
        pool.closing("a")
        #expect(pool.closed("a") == nil)
        #expect(pool.open == 0)
    }

    @Test func aFailedConnectFreesItsPlaceForTheNextWaitingRequest() {
        var pool = Machine(maxConnections: 1)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.acquire(2) == .wait)
        #expect(pool.connectFailed() == 2)
        #expect(pool.open == 1)
        #expect(pool.connectFailed() == nil)
        #expect(pool.open == 0)
        #expect(pool.acquire(3) == .connect)
    }

    @Test func shuttingDownRefusesWaitingAndNewRequestsAndClosesWhatComesBack() {
        var pool = Machine(maxConnections: 2)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.acquire(2) == .connect)
        #expect(pool.connected("b") == .use)
        #expect(pool.released("a") == .park)
        #expect(pool.acquire(3) == .lease("a"))
        #expect(pool.acquire(4) == .wait)
        #expect(pool.released("a") == .hand(to: 4))
        #expect(pool.acquire(5) == .wait)
        #expect(pool.released("b") == .hand(to: 5))
        #expect(pool.released("b") == .park)
        #expect(pool.acquire(6) == .lease("b"))
        #expect(pool.acquire(7) == .wait)
        let (refused, close) = pool.shutDown()
        #expect(refused == [7])
        #expect(close.isEmpty)
        #expect(pool.acquire(8) == .refuse)
        #expect(pool.released("b") == .close)
        #expect(pool.connected("c") == .closeAndRefuse)
        #expect(pool.closed("b") == nil, "nothing is opened after shutdown")
    }

    @Test func shuttingDownClosesTheIdleConnections() {
        var pool = Machine(maxConnections: 2)
        #expect(pool.acquire(1) == .connect)
        #expect(pool.connected("a") == .use)
        #expect(pool.released("a") == .park)
        #expect(pool.shutDown().close == ["a"])
        #expect(pool.idle.isEmpty)
    }

    /// A model check: random events against the rules' invariants. Never more than the limit
    /// open, an idle connection is never also leased, and a waiting request is served only once
    /// and never after it was dropped.
    @Test(arguments: [1, 2, 7])
    func randomEventsKeepTheInvariants(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var pool = Machine(maxConnections: 3)
        var leased: Set<String> = []
        var connecting = 0
        var served: Set<Int> = []
        var dropped: Set<Int> = []
        var nextRequest = 0
        var nextConnection = 0
        for _ in 0..<5000 {
            switch random.next() % 7 {
            case 0, 1:
                nextRequest += 1
                switch pool.acquire(nextRequest) {
                case .lease(let id):
                    #expect(!leased.contains(id))
                    leased.insert(id)
                    served.insert(nextRequest)
                case .connect: connecting += 1
                case .wait, .refuse: break
                }
            case 2 where connecting > 0:
                connecting -= 1
                nextConnection += 1
                if random.next() % 4 == 0 {
                    if let request = pool.connectFailed() {
                        connecting += 1
                        #expect(served.insert(request).inserted)
                    }
                } else {
                    #expect(pool.connected("c\(nextConnection)") == .use)
                    leased.insert("c\(nextConnection)")
                }
            case 3 where !leased.isEmpty:
                let id = leased.randomElement(using: &random)!
                switch pool.released(id) {
                case .hand(let request):
                    #expect(served.insert(request).inserted)
                case .park: leased.remove(id)
                case .close: Issue.record("not shut down")
                }
            case 4 where !leased.isEmpty || !pool.idle.isEmpty:
                let id = (Array(leased) + pool.idle).randomElement(using: &random)!
                leased.remove(id)
                pool.closing(id)
                if let request = pool.closed(id) {
                    connecting += 1
                    #expect(served.insert(request).inserted)
                }
            case 5 where !pool.waiting.isEmpty:
                pool.cancel(pool.waiting.randomElement(using: &random)!)
            case 6 where !pool.waiting.isEmpty && random.next() % 8 == 0:
                let waiting = pool.waiting
                #expect(pool.dropWaiting() == waiting)
                dropped.formUnion(waiting)
            default:
                break
            }
            #expect(pool.open <= 3)
            #expect(pool.open == leased.count + pool.idle.count + connecting)
            #expect(Set(pool.idle).isDisjoint(with: leased))
            #expect(Set(pool.waiting).isDisjoint(with: served))
            #expect(served.isDisjoint(with: dropped))
        }
    }
}
