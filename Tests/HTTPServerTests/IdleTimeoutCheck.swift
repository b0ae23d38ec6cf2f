import Testing
import TestSupport

/// Requests `path(n)` on `client` every `pause` for twice `idleTimeout`, then expects the server
/// to close the connection once it is idle: never sooner than a whole idle timeout after the last
/// answered request was sent (or, before the first answer, after `connecting`: an instant taken
/// before the client connected, since the server's idle clock starts when it accepts).
///
/// Real time, so only what a slow host cannot break is asserted: the server may close a whole
/// idle timeout after its last answer, which it wrote after the last request was sent. A host so
/// loaded that this task sleeps past the timeout sees a rightful close.
func expectOpenWhileBusyThenClosedWhenIdle(
    _ client: RawClient, connecting: ContinuousClock.Instant, idleTimeout: Duration, pause: Duration,
    path: (Int) -> String
) async throws {
    let started = ContinuousClock.now
    var lastSent = connecting
    var answered = 0
    while started.duration(to: .now) < idleTimeout * 2 {
        let sending = ContinuousClock.now
        let reply: TestResponse
        do {
            reply = try await client.request(path(answered))
        } catch {
            let since = lastSent.duration(to: .now)
            #expect(since >= idleTimeout, "closed \(since) after the last answered request was sent (\(answered) answers)")
            return
        }
        #expect(reply.status == 200)
        lastSent = sending
        answered += 1
        if pause > .zero { try await Task.sleep(for: pause) }
    }
    #expect(answered >= 2)
    #expect(try await client.readsEndOfStream())
    #expect(lastSent.duration(to: .now) >= idleTimeout, "closed \(lastSent.duration(to: .now)) after the last request was sent")
}
