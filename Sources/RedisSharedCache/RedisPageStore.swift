import ProductDetails
import Redis
import RESP

/// The shared cache on Redis: pages, load leases and fleet-wide invalidation, each one command
/// (most of them one script, so each step is atomic for the whole fleet).
package struct RedisPageStore: SharedPageStore {
    let redis: any RedisCommandRunner
    package let keys: SharedCacheKeys
    /// How long an untouched generation token lives: longer than any page stored under it, so it
    /// expires only after its pages (a lost token only costs a reload: see ``SharedGeneration``).
    let generationLifetime: Duration
    let leaseDuration: Duration
    /// How many invalidations the log in Redis keeps.
    let invalidationMemory: Int

    package init(
        redis: any RedisCommandRunner, keys: SharedCacheKeys, leaseDuration: Duration, generationLifetime: Duration,
        invalidationMemory: Int = SharedCacheSettings().invalidationMemory
    ) {
        self.redis = redis
        self.keys = keys
        self.leaseDuration = leaseDuration
        self.generationLifetime = generationLifetime
        self.invalidationMemory = invalidationMemory
    }

    package func read(id: String, deadline: Duration) async throws(SharedStoreFailure) -> SharedRead {
        try await read(id: id, page: true, deadline: deadline)
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
        else { throw unexpected(reply) }
        let generation = SharedGeneration(generationToken)
        switch (kind, elements.count) {
        case (1, 4):
            guard let bytes = elements[2].bulkBytes, let remaining = elements[3].integer else { throw unexpected(reply) }
            guard let page = SharedPageCodec.decode(bytes, dropping: generationToken.utf8.count + 1), remaining > 0 else {
                // Not ours to read (another format) or expiring right now: a miss, and gone.
                _ = try? await run(.command(RESPCommand("DEL", .string(keys.page(of: id)))), deadline: deadline)
                if afterDeleting { return .loadingElsewhere }
                return try await read(id: id, page: readsPage, deadline: deadline, afterDeleting: true)
            }
            let age = max(.zero, page.lifetime - .milliseconds(remaining))
            return .page(page, age: age, generation: generation)
        case (2, 2):
            return .claimed(SharedClaim(id: id, generation: generation, token: token))
        case (3, 2):
            return .loadingElsewhere
        default:
            throw unexpected(reply)
        }
    }

    package func claim(id: String, generation: SharedGeneration, deadline: Duration) async throws(SharedStoreFailure) -> SharedClaim? {
        let token = RandomToken.make()
        let reply = try await run(.script(
            SharedCacheScripts.claim, keys: [.string(keys.generation(of: id)), .string(keys.lease(of: id))],
            arguments: [.string(generation.token), .string(token), .integer(leaseDuration.wholeMilliseconds)]
        ), deadline: deadline)
        guard let taken = reply.integer else { throw unexpected(reply) }
        return taken == 1 ? SharedClaim(id: id, generation: generation, token: token) : nil
    }

    package func renew(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) -> Bool {
        let reply = try await run(.script(
            SharedCacheScripts.renew, keys: [.string(keys.lease(of: claim.id))],
            arguments: [.string(claim.leaseValue), .integer(leaseDuration.wholeMilliseconds)]
        ), deadline: deadline)
        guard let renewed = reply.integer else { throw unexpected(reply) }
        return renewed == 1
    }

    package func store(
        _ page: SharedPage, under claim: SharedClaim, keepingLease: Bool, deadline: Duration
    ) async throws(SharedStoreFailure) -> Bool {
        var value = Array(claim.generation.token.utf8)
        value.append(UInt8(ascii: " "))
        SharedPageCodec.encode(page, into: &value)
        let reply = try await run(.script(
            SharedCacheScripts.store,
            keys: [.string(keys.generation(of: claim.id)), .string(keys.lease(of: claim.id)), .string(keys.page(of: claim.id))],
            arguments: [
                .string(claim.generation.token), .string(claim.leaseValue), .bytes(value),
                .integer(page.lifetime.wholeMilliseconds), .integer(generationLifetime.wholeMilliseconds),
                .integer(keepingLease ? 1 : 0),
            ]
        ), deadline: deadline)
        guard let stored = reply.integer else { throw unexpected(reply) }
        return stored == 1
    }

    package func release(_ claim: SharedClaim, deadline: Duration) async throws(SharedStoreFailure) {
        let reply = try await run(.script(
            SharedCacheScripts.release, keys: [.string(keys.lease(of: claim.id))],
            arguments: [.string(claim.leaseValue)]
        ), deadline: deadline)
        guard reply.integer != nil else { throw unexpected(reply) }
    }

    /// Each product `scope` names gets a new random generation token, each by a command of its
    /// own (no script touches two products' keys), all sent at once; then one script logs the
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
        else { throw unexpected(reply) }
        return SharedInvalidationReceipt(sequence: sequence, receivers: Int(receivers))
    }

    package func invalidationHistory(deadline: Duration) async throws(SharedStoreFailure) -> SharedInvalidationHistory {
        let reply = try await run(.script(
            SharedCacheScripts.history, keys: [.string(keys.invalidationSequence), .string(keys.invalidationLog)], arguments: []
        ), deadline: deadline)
        // The script starts a log that did not exist: an empty one is not a log of ours.
        guard let lines = reply.elements, !lines.isEmpty else { throw unexpected(reply) }
        var entries: [SharedInvalidationHistory.Entry] = []
        var knownFrom: UInt64?
        for line in lines {
            guard let text = line.string else { throw unexpected(reply) }
            let fields = text.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, let sequence = UInt64(fields[0]) else { throw unexpected(reply) }
            knownFrom = knownFrom ?? sequence
            switch fields[1] {
            case "~": continue
            case "*": entries.append(.init(sequence: sequence, id: nil))
            default: entries.append(.init(sequence: sequence, id: String(fields[1])))
            }
        }
        return SharedInvalidationHistory(knownFrom: knownFrom ?? 0, entries: entries)
    }

    /// `SET <generation key> <new random token>` for every product at once (pipelined on the
    /// connection).
    private func replaceGenerations(of ids: [String], deadline: Duration) async throws(SharedStoreFailure) {
        let lifetime = generationLifetime.wholeMilliseconds
        let failure = await withTaskGroup(of: SharedStoreFailure?.self) { group in
            for id in ids {
                let key = keys.generation(of: id)
                group.addTask {
                    let command = RESPCommand("SET", .string(key), .string(RandomToken.make()), "PX", .integer(lifetime))
                    do throws(SharedStoreFailure) {
                        let reply = try await run(.command(command), deadline: deadline)
                        return reply.string == "OK" ? nil : unexpected(reply)
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
        let reply: RESPValue
        do {
            reply = try await redis.run(request, deadline: deadline)
        } catch {
            switch error {
            case .timedOut: throw .timedOut
            case .cancelled: throw .cancelled
            default: throw .unavailable(error.detail)
            }
        }
        if let message = reply.errorMessage { throw .unavailable("Redis answered an error: \(message)") }
        return reply
    }

    private func unexpected(_ reply: RESPValue) -> SharedStoreFailure {
        .unavailable("Redis answered something the shared cache did not expect: \(String(describing: reply).prefix(120))")
    }
}
