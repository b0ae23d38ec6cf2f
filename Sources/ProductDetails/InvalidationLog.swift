/// Remembers which keys were invalidated at which generation, within a fixed memory bound.
///
/// Invalidating bumps a generation counter (once for a bulk of keys). A store carrying a token older than the key's last
/// invalidation, or older than the last invalidate-all, is refused. So that the per-key map cannot
/// grow forever, only the most recent `capacity` per-key invalidations are kept; forgetting an
/// older one raises `forgottenBefore`, and any token older than that is conservatively treated as
/// invalidated (a refused store costs one extra load later, never a stale answer).
struct InvalidationLog<Key: Hashable> {
    private(set) var generation: UInt64 = 0
    private var everythingInvalidatedAt: UInt64 = 0
    private var forgottenBefore: UInt64 = 0
    private var generationByKey: [Key: UInt64] = [:]
    /// The newest generation at which any one key was invalidated: a token at or after it
    /// needs no look-up per key (a shared-cache hit stores its page with every id it shows).
    private var newestKeyInvalidation: UInt64 = 0
    /// Per-key invalidations oldest first; entries before `head` are already forgotten.
    private var history: [(generation: UInt64, key: Key)] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var rememberedKeyCount: Int { generationByKey.count }

    func token() -> LoadToken {
        LoadToken(generation: generation)
    }

    mutating func invalidate(_ key: Key) {
        invalidate(CollectionOfOne(key))
    }

    /// Invalidates every key of `keys` at one new generation.
    mutating func invalidate(_ keys: some Sequence<Key>) {
        generation += 1
        for key in keys {
            generationByKey[key] = generation
            newestKeyInvalidation = generation
            history.append((generation, key))
        }
        while history.count - head > capacity {
            let forgotten = history[head]
            head += 1
            if generationByKey[forgotten.key] == forgotten.generation {
                generationByKey[forgotten.key] = nil
            }
            forgottenBefore = forgotten.generation
        }
        if head > capacity {
            history.removeFirst(head)
            head = 0
        }
    }

    /// Everything older than this generation is refused, so the per-key marks can all be dropped.
    mutating func invalidateAll() {
        generation += 1
        everythingInvalidatedAt = generation
        generationByKey.removeAll()
        history.removeAll()
        head = 0
    }

    /// Whether none of `keys` was invalidated after `token` was taken.
    func allowsStore(for keys: some Sequence<Key>, token: LoadToken) -> Bool {
        keys.allSatisfy { allowsStore(for: $0, token: token) }
    }

    func allowsStore(for key: Key, token: LoadToken) -> Bool {
        if token.generation < everythingInvalidatedAt { return false }
        if token.generation < forgottenBefore { return false }
        if token.generation >= newestKeyInvalidation { return true }
        if let invalidatedAt = generationByKey[key], token.generation < invalidatedAt { return false }
        return true
    }
}
