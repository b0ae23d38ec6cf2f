import RESP
import Testing
@testable import Redis

/// How one request follows a Redis Cluster's redirects, on plain values and a manual time line.
@Suite("Cluster call rules")
struct ClusterCallTests {
    let a = RedisNodeAddress(host: "10.0.0.1", port: 7000)
    let b = RedisNodeAddress(host: "10.0.0.2", port: 7001)
    let request = RedisRequest.command(RESPCommand("GET", "pd:v6:{p1}:gen"))

    func error(_ text: String) -> RESPValue { .simpleError(Array(text.utf8)) }

    @Test func aPlainReplyIsTheAnswer() {
        var call = RedisClusterCall(request, deadline: ms(250))
        #expect(call.start(owner: a) == .send(request, to: a))
        let (action, redirect) = call.replied(.bulkString(wire("v")), now: ms(1))
        #expect(action == .answer(.bulkString(wire("v"))))
        #expect(redirect == nil)
        // An error that is no redirect is an answer too (a script's, a wrong type).
        var other = RedisClusterCall(request, deadline: ms(250))
        _ = other.start(owner: a)
        #expect(other.replied(error("WRONGTYPE Operation against a key"), now: ms(1)).action == .answer(error("WRONGTYPE Operation against a key")))
    }

    @Test func movedIsFollowedAndReported() {
        var call = RedisClusterCall(request, deadline: ms(250))
        _ = call.start(owner: a)
        let (action, redirect) = call.replied(error("MOVED 11819 10.0.0.2:7001"), now: ms(1))
        #expect(action == .send(request, to: b))
        #expect(redirect == .moved(slot: 11819, to: b))
        #expect(call.replied(.integer(1), now: ms(2)).action == .answer(.integer(1)))
    }

    @Test func askIsFollowedOnceWithAsking() {
        var call = RedisClusterCall(request, deadline: ms(250))
        _ = call.start(owner: a)
        let (action, redirect) = call.replied(error("ASK 11819 10.0.0.2:7001"), now: ms(1))
        #expect(action == .send(.asking(request), to: b))
        #expect(redirect == .ask(slot: 11819, to: b))
    }

    /// `MOVED 1 :7001`: the node did not know its own address; it is the host just asked.
    @Test func aRedirectWithoutAHostMeansTheHostAsked() {
        var call = RedisClusterCall(request, deadline: ms(250))
        _ = call.start(owner: a)
        let (action, redirect) = call.replied(error("MOVED 11819 :7001"), now: ms(1))
        let sameHost = RedisNodeAddress(host: "10.0.0.1", port: 7001)
        #expect(action == .send(request, to: sameHost))
        #expect(redirect == .moved(slot: 11819, to: sameHost))
    }

    @Test func redirectsStopAfterAFewAndTheLastErrorIsTheAnswer() {
        var call = RedisClusterCall(request, deadline: ms(250))
        _ = call.start(owner: a)
        for index in 0..<RedisClusterCall.maxRedirects {
            let target = index.isMultiple(of: 2) ? "10.0.0.2:7001" : "10.0.0.1:7000"
            guard case .send = call.replied(error("MOVED 1 \(target)"), now: ms(index)).action else {
                Issue.record("redirect \(index + 1) was not followed")
                return
            }
        }
        let last = error("MOVED 1 10.0.0.2:7001")
        #expect(call.replied(last, now: ms(9)).action == .answer(last))
    }

    /// TRYAGAIN and CLUSTERDOWN pause 5 ms, doubling to 100 ms, and give the error back rather
    /// than pause past the deadline.
    @Test(arguments: ["TRYAGAIN Multiple keys request during rehashing of slot", "CLUSTERDOWN The cluster is down"])
    func laterIsRetriedWithinTheDeadlineOnly(text: String) {
        var call = RedisClusterCall(request, deadline: ms(100))
        _ = call.start(owner: a)
        var now = Duration.zero
        var pauses: [Duration] = []
        while case .pause(let until) = call.replied(error(text), now: now).action {
            pauses.append(until - now)
            now = until
            #expect(call.pauseEnded(owner: b) == .send(request, to: b), "the owner as now known")
        }
        #expect(pauses == [ms(5), ms(10), ms(20), ms(40)])
        #expect(now == ms(75))
        #expect(call.redirects == 0)
    }
}
