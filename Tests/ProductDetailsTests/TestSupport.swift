import Locking
import PureTestSupport
import Synchronization
import Testing
@testable import ProductDetails
import Timekeeping

/// A one-shot gate a test opens by hand: holds a "leader" mid-flight without any delay.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    }

    private let state = Locked(State())

    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Suspends until ``open()``; throws `CancellationError` as soon as the task is cancelled.
    func wait() async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.isOpen { return .success(()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func waitForWaiters(_ count: Int = 1) async {
        await eventually { self.waiterCount >= count }
    }
}

/// A time source whose sleeps return at once after moving time forward by the requested amount,
/// recording each: for retry tests that check the delays chosen, not the waiting.
final class SkippingTimeSource: TimeSource {
    private struct State {
        var now: Duration = .zero
        var sleeps: [Duration] = []
        var overshoot: Duration = .zero
    }

    private let state = Locked(State())

    var now: Duration { state.withLock { $0.now } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }

    /// Makes every later sleep last `extra` longer than asked, like a late timer.
    func oversleep(by extra: Duration) {
        state.withLock { $0.overshoot = extra }
    }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            state.now += duration + state.overshoot
        }
    }
}

/// A scripted upstream port: answers per (id, call number), optionally held at a gate, and
/// counts calls, concurrency and cancellations.
final class FakePort<Value: Sendable>: Sendable {
    private struct State {
        var calls: [(id: String, call: UpstreamCall)] = []
        var running = 0
        var maxRunning = 0
        var cancellations = 0
    }

    private let state = Locked(State())
    private let gate = Locked<Gate?>(nil)
    private let responder: Locked<@Sendable (String, Int) -> Result<Value, UpstreamFailure>>

    init(_ responder: @escaping @Sendable (String, Int) -> Result<Value, UpstreamFailure>) {
        self.responder = Locked(responder)
    }

    var callCount: Int { state.withLock { $0.calls.count } }
    var calls: [(id: String, call: UpstreamCall)] { state.withLock { $0.calls } }
    var maxRunning: Int { state.withLock { $0.maxRunning } }
    var running: Int { state.withLock { $0.running } }
    var cancellations: Int { state.withLock { $0.cancellations } }

    /// Holds every later call until the returned gate opens.
    @discardableResult
    func hold() -> Gate {
        let newGate = Gate()
        gate.withLock { $0 = newGate }
        return newGate
    }

    func release() {
        let current = gate.withLock { gate in
            defer { gate = nil }
            return gate
        }
        current?.open()
    }

    func respond(_ responder: @escaping @Sendable (String, Int) -> Result<Value, UpstreamFailure>) {
        self.responder.withLock { $0 = responder }
    }

    func call(id: String, _ call: UpstreamCall) async throws(UpstreamFailure) -> Value {
        let number = state.withLock { state -> Int in
            state.calls.append((id, call))
            state.running += 1
            state.maxRunning = max(state.maxRunning, state.running)
            return state.calls.count
        }
        defer { state.withLock { $0.running -= 1 } }
        if let gate = gate.withLock({ $0 }) {
            do {
                try await gate.wait()
            } catch {
                state.withLock { $0.cancellations += 1 }
                throw .cancelled
            }
        }
        let respond = responder.withLock { $0 }
        return try respond(id, number).get()
    }
}

/// The three upstream services, backed by fake ports with the same catalogue by default.
struct FakeCatalog: ProductSource, ReviewSource, SuggestionSource {
    let productPort = FakePort<Product> { id, _ in .success(FakeCatalog.product(id)) }
    let reviewPort = FakePort<[Review]> { id, _ in .success(FakeCatalog.reviews(id)) }
    let suggestionPort = FakePort<[Product]> { id, _ in .success(FakeCatalog.suggested(id)) }

    static func product(_ id: String) -> Product {
        Product(id: id, name: "Product \(id)", priceInCents: 1999, currency: "EUR")
    }

    static func reviews(_ id: String) -> [Review] {
        [Review(id: "\(id)-r1", rating: 5, text: "Great \"stuff\"\n"), Review(id: "\(id)-r2", rating: 2, text: "meh")]
    }

    static func suggested(_ id: String) -> [Product] {
        [Product(id: "\(id)-s1", name: "Also nice", priceInCents: 500, currency: "EUR")]
    }

    func product(id: String, call: UpstreamCall) async throws(UpstreamFailure) -> Product {
        try await productPort.call(id: id, call)
    }

    func reviews(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Review] {
        try await reviewPort.call(id: productID, call)
    }

    func suggestions(productID: String, call: UpstreamCall) async throws(UpstreamFailure) -> [Product] {
        try await suggestionPort.call(id: productID, call)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
