import ProductDetails
import Redis
import RESP
import Timekeeping

/// The shared cache on Redis: pages, load leases and fleet-wide invalidation, each one command
/// (most of them a script, so each step is atomic for the whole fleet).
package struct RedisPageStore: SharedPageStore {
    let redis: any RedisCommandRunner
    package let keys: SharedCacheKeys
    /// How long an untouched generation token lives: longer than any page stored under it, so it
    /// expires only after its pages (a lost token only costs a reload: see ``SharedGeneration``).
    let generationLifetime: Duration
    let leaseDuration: Duration
    /// How many invalidations the log in Redis keeps.
    let invalidationMemory: Int
    /// What a page's stored-at time is written and its age read by: the replicas' clocks.
    let wallClock: any WallClock
    /// Told of each page read whose age this clock put out of bounds (the clocks disagree).
    let clockSkew: @Sendable (PageClockSkew) -> Void

    package init(
        redis: any RedisCommandRunner, keys: SharedCacheKeys, leaseDuration: Duration, generationLifetime: Duration,
        invalidationMemory: Int = SharedCacheSettings().invalidationMemory, wallClock: any WallClock = SystemWallClock(),
        clockSkew: @escaping @Sendable (PageClockSkew) -> Void = { _ in }
    ) {
        self.redis = redis
        self.keys = keys
        self.leaseDuration = leaseDuration
        self.generationLifetime = generationLifetime
        self.invalidationMemory = invalidationMemory
        self.wallClock = wallClock
        self.clockSkew = clockSkew
    }

    package func read(id: String, deadline: Duration, peeked: Bool) async throws(SharedStoreFailure) -> SharedRead {
        if !peeked, let known = try Self.looked(try await run(Self.lookRequest(id, keys), deadline: deadline), clock: clock) {
            return known
        }
        return try await read(id: id, page: true, deadline: deadline)
    }

    /// A request's first look: a `GET` of the page alone, which costs Redis what any `GET` of its
    /// size does. The page needs no token to be trusted: none is older than its product's last
    /// invalidation (``SharedCacheScripts``). `nil` when there is no page (or one this release
    /// cannot read): the read script that follows takes the lease, learns who holds it, or
    /// deletes the value.
    package func peek(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead? {
        try Self.peeked(try await run(Self.peekRequest(id, keys), deadline: deadline), clock: clock)
    }

    package func peek(
        id: String, deadline: Duration, completion: @escaping @Sendable (Result<SharedRead?, SharedStoreFailure>) -> Void
    ) -> (() -> Void)? {
        // The reply needs the clock alone: capturing the whole store would retain each of its parts.
        let clock = self.clock
        return redis.send(Self.peekRequest(id, keys), deadline: deadline) { outcome in
            completion(Result { () throws(SharedStoreFailure) in try Self.peeked(try Self.checked(outcome), clock: clock) })
        }
    }

    /// What the peek's `GET` answered: the page, under the token it leads with.
    private static func peeked(_ reply: RESPValue, clock: PageClock) throws(SharedStoreFailure) -> SharedRead? {
        if reply.isNull { return nil }
        guard let bytes = reply.bulkBytes else { throw unexpected(reply) }
        guard let token = token(leading: bytes) else { return nil }
        return page(in: bytes, of: token, clock: clock)
    }

    /// `GET` of the page, written straight into one buffer: no key string and no command value
    /// is made for the read every shared-cache hit is. Its fixed part is a literal, appended from
    /// its bytes in place: appending an array retains it for the call (the test compares the
    /// whole with the encoded command).
    static func peekRequest(_ id: String, _ keys: SharedCacheKeys) -> RedisRequest {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.get.utf8CodeUnitCount + keys.encodedCount(ofKey: .page, of: id))
        Self.get.withUTF8Buffer { bytes.append(contentsOf: $0) }
        keys.appendKey(.page, of: id, to: &bytes)
        return .encoded(bytes, leadingReplies: 0, routingKey: .string(keys.hashTag(of: id)))
    }

    /// `GET` of one key, without its key.
    private static let get: StaticString = "*2\r\n$3\r\nGET\r\n"

    /// The look of a request that waits for another replica's load, without a script as far as
    /// it can go: the generation, the page and the lease in one `MGET` (one command, atomic: the
    /// three values are of one moment). A page of the current generation is the answer; with
    /// none, a lease of the current generation means the load still runs elsewhere (what the
    /// script would say). Anything else (no generation, no lease, a value of this generation in
    /// another format) is nil: the read script then does what it does for those.
    private static func looked(_ reply: RESPValue, clock: PageClock) throws(SharedStoreFailure) -> SharedRead? {
        guard let values = reply.elements, values.count == 3 else { throw unexpected(reply) }
        guard let generationToken = values[0].string else { return nil }
        if let bytes = values[1].bulkBytes, belongs(bytes, to: generationToken) {
            // Of this generation but unreadable: the script deletes it.
            return page(in: bytes, of: generationToken, clock: clock)
        }
        if let lease = values[2].bulkBytes, belongs(lease, to: generationToken) { return .loadingElsewhere }
        return nil
    }

    /// `MGET gen page lease`.
    static func lookRequest(_ id: String, _ keys: SharedCacheKeys) -> RedisRequest {
        .command(RESPCommand("MGET", .string(keys.generation(of: id)), .string(keys.page(of: id)), .string(keys.lease(of: id))))
    }

    package func claimCurrent(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        switch try await read(id: id, page: false, deadline: deadline) {
        case .claimed(let claim): claim
        case .loadingElsewhere: nil
        case .page, .invalidated: throw .unavailable("Redis answered a page to a lease-only read")
        }
    }

    /// The read script: the page (unless `page` is false) or else the lease. A value that is not
    /// a page of ours is deleted and the read made once more, so that the caller gets the lease
    /// (or learns who holds it) instead of waiting for a load nobody runs.
    private func read(
        id: String, page readsPage: Bool, deadline: Duration, afterDeleting: Bool = false
    ) async throws(SharedStoreFailure) -> SharedRead {
        let token = RandomToken.make()
        let reply = try await run(.script(
            SharedCacheScripts.read,
            keys: [.string(keys.generation(of: id)), .string(keys.page(of: id)), .string(keys.lease(of: id))],
            arguments: [
                .string(RandomToken.make()), .string(token), .integer(leaseDuration.wholeMilliseconds),
                .integer(generationLifetime.wholeMilliseconds), .integer(readsPage ? 0 : 1),
            ]
        ), deadline: deadline)
        guard let elements = reply.elements, elements.count >= 2, let kind = elements[0].integer,
              let generationToken = elements[1].string
        else { throw Self.unexpected(reply) }
        let generation = SharedGeneration(generationToken)
        switch (kind, elements.count) {
        case (1, 3):
            guard let bytes = elements[2].bulkBytes else { throw Self.unexpected(reply) }
            guard let page = Self.page(in: bytes, of: generationToken, clock: clock) else {
                // Not ours to read (another format): a miss, and gone.
                _ = try? await run(.command(RESPCommand("DEL", .string(keys.page(of: id)))), deadline: deadline)
                if afterDeleting { return .loadingElsewhere }
                return try await read(id: id, page: readsPage, deadline: deadline, afterDeleting: true)
            }
            return page
        case (2, 2):
            return .claimed(SharedClaim(id: id, generation: generation, token: token))
        case (3, 2):
            return .loadingElsewhere
        default:
            throw Self.unexpected(reply)
        }
    }

    /// The page in a page value (`<generation> <page>`) of generation `token`, if it is one, aged
    /// by this replica's clock.
    private static func page(in bytes: [UInt8], of token: String, clock: PageClock) -> SharedRead? {
        guard belongs(bytes, to: token), let (page, storedAt) = SharedPageCodec.decode(bytes, dropping: token.utf8.count + 1)
        else { return nil }
        let (age, skew) = age(of: page, storedAt: storedAt, now: clock.wall.sinceEpoch)
        if let skew { clock.skew(skew) }
        return .page(page, age: age, generation: SharedGeneration(token))
    }

    /// How long ago a page stored at `storedAt` (by its storer's clock) was stored, by this
    /// replica's clock at `now`: never less than zero, and always short of the page's lifetime.
    /// Redis still holds the page, so it has not outlived it: a clock ahead of the storer's must
    /// not make it a miss (every read a load, for as long as the clocks disagree). Clocks that
    /// disagree by some amount shift the page's freshness by as much, within those bounds; by
    /// more than ``PageClockSkew/tolerance`` beyond them, the skew is named.
    static func age(of page: SharedPage, storedAt: Duration, now: Duration) -> (Duration, PageClockSkew?) {
        let raw = now - storedAt
        let latest = page.lifetime - .milliseconds(1)
        let skew: PageClockSkew? = raw < .zero - PageClockSkew.tolerance ? .storedInFuture
            : raw > page.lifetime + PageClockSkew.tolerance ? .pastLifetime : nil
        return (min(max(.zero, raw), latest), skew)
    }

    /// What a read needs to age its page: the replica's clock, and where to tell a skew.
    private struct PageClock: Sendable {
        let wall: any WallClock
        let skew: @Sendable (PageClockSkew) -> Void
    }

    /// The clock a reply's pages are aged by, and where a skew is told.
    private var clock: PageClock {
        PageClock(wall: wallClock, skew: clockSkew)
    }

    /// The generation token a page value leads with, before its first space.
    private static func token(leading value: [UInt8]) -> String? {
        guard let space = value.firstIndex(of: UInt8(ascii: " ")), space > 0 else { return nil }
        return String(decoding: value[..<space], as: UTF8.self)
    }

    /// Whether a page or lease value starts with generation `token` and a space.
    private static func belongs(_ value: [UInt8], to token: String) -> Bool {
        let mark = token.utf8.count
        guard value.count > mark, value[mark] == UInt8(ascii: " ") else { return false }
        // Compared as two buffers: `starts(with:)` over a `UTF8View` walks it element by element.
        return token.utf8.withContiguousStorageIfAvailable { token in value.starts(with: token) } ?? value.starts(with: token.utf8)
    }

    package func claim(id: String, generation: SharedGeneration, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        let token = RandomToken.make()
        let reply = try await run(.script(
            SharedCacheScripts.claim, keys: [.string(keys.generation(of: id)), .string(keys.lease(of: id))],
            arguments: [
                .string(generation.token), .string(token), .integer(leaseDuration.wholeMilliseconds),
                .integer(generationLifetime.wholeMilliseconds),
            ]
        ), deadline: deadline)
        guard let taken = reply.integer else { throw Self.unexpected(reply) }
        return taken == 1 ? SharedClaim(id: id, generation: generation, token: token) : nil
    }

    package func renew(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool {
        let reply = try await run(.script(
            SharedCacheScripts.renew, keys: [.string(keys.lease(of: claim.id))],
            arguments: [.string(claim.leaseValue), .integer(leaseDuration.wholeMilliseconds)]
        ), deadline: deadline)
        guard let renewed = reply.integer else { throw Self.unexpected(reply) }
        return renewed == 1
    }

    package func store(
        _ page: SharedPage, under claim: SharedClaim, keepingLease: Bool, deadline: Duration
    ) async throws(SharedStoreFailure) -> Bool {
        var value = Array(claim.generation.token.utf8)
        value.append(UInt8(ascii: " "))
        SharedPageCodec.encode(page, storedAt: wallClock.sinceEpoch, into: &value)
        let reply = try await run(.script(
            SharedCacheScripts.store,
            keys: [.string(keys.generation(of: claim.id)), .string(keys.lease(of: claim.id)), .string(keys.page(of: claim.id))],
            arguments: [
                .string(claim.generation.token), .string(claim.leaseValue), .bytes(value),
                .integer(page.lifetime.wholeMilliseconds), .integer(generationLifetime.wholeMilliseconds),
                .integer(keepingLease ? 1 : 0),
            ]
        ), deadline: deadline)
        guard let stored = reply.integer else { throw Self.unexpected(reply) }
        return stored == 1
    }

    package func release(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) {
        let reply = try await run(.script(
            SharedCacheScripts.release, keys: [.string(keys.lease(of: claim.id))],
            arguments: [.string(claim.leaseValue)]
        ), deadline: deadline)
        guard reply.integer != nil else { throw Self.unexpected(reply) }
    }

    /// Each product `scope` names gets a new random generation token and loses its page and
    /// lease (``SharedCacheScripts/replace``), each by a script of its own (no script touches two
    /// products' keys), all sent at once; then one script logs the
    /// invalidation and publishes it. Invalidating everything is that script alone: the replicas
    /// refuse every page stamped before it.
    package func invalidate(_ scope: InvalidationScope, deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationReceipt {
        try await replaceGenerations(of: scope.ids, deadline: deadline)
        let reply = try await run(.script(
            SharedCacheScripts.publish, keys: [.string(keys.invalidationSequence), .string(keys.invalidationLog)],
            arguments: [
                .integer(Int64(invalidationMemory)), .string(keys.invalidationChannel), .bytes(scope.payload),
            ] + scope.ids.map { .string($0) }
        ), deadline: deadline)
        guard let elements = reply.elements, elements.count == 2, let text = elements[0].string, let sequence = UInt64(text),
              let receivers = elements[1].integer
        else { throw Self.unexpected(reply) }
        return SharedInvalidationReceipt(sequence: sequence, receivers: Int(receivers))
    }

    package func invalidationHistory(deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationHistory {
        let reply = try await run(.script(
            SharedCacheScripts.history, keys: [.string(keys.invalidationSequence), .string(keys.invalidationLog)], arguments: []
        ), deadline: deadline)
        // The script starts a log that did not exist: an empty one is not a log of ours.
        guard let lines = reply.elements, !lines.isEmpty else { throw Self.unexpected(reply) }
        var entries: [SharedInvalidationHistory.Entry] = []
        var knownFrom: UInt64?
        for line in lines {
            guard let text = line.string else { throw Self.unexpected(reply) }
            let fields = text.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, let sequence = UInt64(fields[0]) else { throw Self.unexpected(reply) }
            knownFrom = knownFrom ?? sequence
            switch fields[1] {
            case "~": continue
            case "*": entries.append(.init(sequence: sequence, id: nil))
            default: entries.append(.init(sequence: sequence, id: String(fields[1])))
            }
        }
        return SharedInvalidationHistory(knownFrom: knownFrom ?? 0, entries: entries)
    }

    /// ``SharedCacheScripts/replace`` for every product at once (pipelined on the connection).
    private func replaceGenerations(of ids: [String], deadline: Duration) async throws(SharedStoreFailure) {
        let lifetime = generationLifetime.wholeMilliseconds
        let failure = await withTaskGroup(of: SharedStoreFailure?.self) { group in
            for id in ids {
                let request = RedisRequest.script(
                    SharedCacheScripts.replace,
                    keys: [.string(keys.generation(of: id)), .string(keys.page(of: id)), .string(keys.lease(of: id))],
                    arguments: [.string(RandomToken.make()), .integer(lifetime)]
                )
                group.addTask {
                    do throws(SharedStoreFailure) {
                        let reply = try await run(request, deadline: deadline)
                        return reply.integer == 1 ? nil : Self.unexpected(reply)
                    } catch {
                        return error
                    }
                }
            }
            for await failure in group where failure != nil { return failure }
            return nil
        }
        if let failure { throw failure }
    }

    private func run(_ request: RedisRequest, deadline: Duration) async throws(SharedStoreFailure) -> RESPValue {
        let outcome: Result<RESPValue, RedisClientError>
        do {
            outcome = .success(try await redis.run(request, deadline: deadline))
        } catch {
            outcome = .failure(error)
        }
        return try Self.checked(outcome)
    }

    /// A command's outcome as the shared cache sees it: an error reply is a failure too.
    private static func checked(_ outcome: Result<RESPValue, RedisClientError>) throws(SharedStoreFailure) -> RESPValue {
        let reply: RESPValue
        switch outcome {
        case .success(let value):
            reply = value
        case .failure(.timedOut):
            throw .timedOut
        case .failure(.cancelled):
            throw .cancelled
        case .failure(let error):
            throw .unavailable(error.detail)
        }
        if let message = reply.errorMessage { throw .unavailable("Redis answered an error: \(message)") }
        return reply
    }

    private static func unexpected(_ reply: RESPValue) -> SharedStoreFailure {
        .unavailable("Redis answered something the shared cache did not expect: \(String(describing: reply).prefix(120))")
    }
}
