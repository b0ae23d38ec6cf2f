import Redis

/// The Lua scripts of the shared cache. Each runs atomically in Redis, which is what makes a read
/// with its lease attempt, and a store with its checks, one step for the whole fleet.
///
/// Every key a script touches comes in `KEYS`, all of them in one hash slot (one product's keys,
/// or the invalidation log's two), so a Redis Cluster runs each on the one node that holds them.
/// The `#!lua` line makes Redis 7 hold scripts to that (it refuses a key of another slot on a
/// cluster; the tests run these scripts on one). No script touches two products' keys:
/// dependencies between pages, and invalidating everything, are judged by each replica against
/// the invalidation log (``publish``, ``history``).
///
/// A page or lease value starts with the generation token it belongs to and a space; one of
/// another generation is treated as absent. A page in Redis is never older than its product's
/// last invalidation: ``replace`` deletes the page and the lease with the old token, in one step,
/// and ``store`` stores for the lease's holder alone, so a load that began before an
/// invalidation never stores. That is what lets a request's first look be a `GET` of the page,
/// without the token.
///
/// That look never touches the token, so under memory pressure Redis may evict it before the
/// page it guards. A product found without a token takes its page's back (``read``, ``claim``):
/// no invalidation came after that page, or the page would be gone.
enum SharedCacheScripts {
    /// KEYS: generation, page, lease. ARGV: generation if none (and no page to take it from),
    /// lease value after its generation (the holder's token), lease ms, generation lifetime ms, 1
    /// to skip the page (a refresh: the lease alone). Returns `{1, gen, page}` for a page, `{2,
    /// gen}` when the lease was taken, `{3, gen}` when another holds it. A page of another
    /// generation is deleted.
    static let read = RedisScript("""
    #!lua
    local gen = redis.call('GET', KEYS[1])
    local page = false
    if not gen or ARGV[5] ~= '1' then page = redis.call('GET', KEYS[2]) end
    if not gen then
      gen = page and string.match(page, '^([%w_%-]+) ') or ARGV[1]
      redis.call('SET', KEYS[1], gen, 'PX', ARGV[4])
    end
    local mark = gen .. ' '
    if page and ARGV[5] ~= '1' then
      if string.sub(page, 1, #mark) == mark then
        return {1, gen, page}
      end
      redis.call('DEL', KEYS[2])
    end
    local lease = redis.call('GET', KEYS[3])
    if lease and string.sub(lease, 1, #mark) == mark then return {3, gen} end
    redis.call('SET', KEYS[3], mark .. ARGV[2], 'PX', ARGV[3])
    return {2, gen}
    """)

    /// KEYS: generation, lease. ARGV: generation, holder's token, lease ms, generation lifetime
    /// ms. Takes the lease at `generation` (a stale page's refresh) unless the product moved on to
    /// another generation or another holder has it at this one; a product without a token takes
    /// `generation`, its page's. Returns 1 when taken.
    static let claim = RedisScript("""
    #!lua
    local gen = redis.call('GET', KEYS[1])
    if not gen then
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
    elseif gen ~= ARGV[1] then
      return 0
    end
    local mark = ARGV[1] .. ' '
    local lease = redis.call('GET', KEYS[2])
    if lease and string.sub(lease, 1, #mark) == mark then return 0 end
    redis.call('SET', KEYS[2], mark .. ARGV[2], 'PX', ARGV[3])
    return 1
    """)

    /// KEYS: generation, page, lease. ARGV: the new generation token, generation lifetime ms. A
    /// product's invalidation: a new token, and the page and the lease of the old one gone in the
    /// same step, so no reader finds that page after it and no load that began before it stores.
    /// Returns 1.
    static let replace = RedisScript("""
    #!lua
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    redis.call('DEL', KEYS[2], KEYS[3])
    return 1
    """)

    /// KEYS: generation, lease, page. ARGV: generation, lease value, page value, page ms,
    /// generation lifetime ms, 1 to keep the lease (a completed page follows). Stores only for
    /// the lease holder, at the current generation.
    static let store = RedisScript("""
    #!lua
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
    redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
    redis.call('PEXPIRE', KEYS[1], ARGV[5])
    if ARGV[6] ~= '1' then redis.call('DEL', KEYS[2]) end
    return 1
    """)

    /// KEYS: lease. ARGV: lease value, lease ms. Extends the lease if it is still this holder's.
    static let renew = RedisScript("""
    #!lua
    if redis.call('GET', KEYS[1]) == ARGV[1] then
      return redis.call('PEXPIRE', KEYS[1], ARGV[2])
    end
    return 0
    """)

    /// KEYS: lease. ARGV: lease value. Deletes the lease if it is still this holder's.
    static let release = RedisScript("""
    #!lua
    if redis.call('GET', KEYS[1]) == ARGV[1] then
      return redis.call('DEL', KEYS[1])
    end
    return 0
    """)

    /// KEYS: the invalidation sequence, the invalidation log (one hash slot). ARGV: log length,
    /// shard channel (in the same slot), the scope's payload, then the ids (none: everything). Logs the invalidation under
    /// a new sequence (Redis's clock in microseconds, never below the last one, so losing the
    /// sequence key cannot make it go back) and publishes `<sequence> <payload>`. A log that did
    /// not exist starts with a `<sequence> ~` marker: nothing before it is known. Returns
    /// `{sequence, receivers}`.
    static let publish = RedisScript("""
    #!lua
    local t = redis.call('TIME')
    local last = tonumber(redis.call('GET', KEYS[1]) or '0')
    local s = string.format('%d', math.max(tonumber(t[1]) * 1000000 + tonumber(t[2]), last + 1))
    redis.call('SET', KEYS[1], s)
    if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('RPUSH', KEYS[2], s .. ' ~') end
    if #ARGV == 3 then
      redis.call('RPUSH', KEYS[2], s .. ' *')
    else
      for i = 4, #ARGV do redis.call('RPUSH', KEYS[2], s .. ' ' .. ARGV[i]) end
    end
    redis.call('LTRIM', KEYS[2], -tonumber(ARGV[1]), -1)
    return {s, redis.call('SPUBLISH', ARGV[2], s .. ' ' .. ARGV[3])}
    """)

    /// KEYS: the invalidation sequence, the invalidation log. The log, oldest first; one that did
    /// not exist (a new fleet, or evicted) is started with its `~` marker at a new sequence.
    static let history = RedisScript("""
    #!lua
    if redis.call('EXISTS', KEYS[2]) == 0 then
      local t = redis.call('TIME')
      local last = tonumber(redis.call('GET', KEYS[1]) or '0')
      local s = string.format('%d', math.max(tonumber(t[1]) * 1000000 + tonumber(t[2]), last + 1))
      redis.call('SET', KEYS[1], s)
      redis.call('RPUSH', KEYS[2], s .. ' ~')
    end
    return redis.call('LRANGE', KEYS[2], 0, -1)
    """)
}
