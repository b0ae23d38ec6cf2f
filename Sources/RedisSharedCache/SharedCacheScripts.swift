import Redis

/// The Lua scripts of the shared cache. Each runs atomically in Redis, which is what makes a read
/// with its lease attempt, and a store with its checks, one step for the whole fleet.
///
/// Keys other than the epoch and generation are built inside the scripts from the tokens just
/// read (a standalone Redis allows that; Redis Cluster is not supported yet). No script touches
/// two products' keys: dependencies between pages are judged by each replica, against the
/// invalidation log (``publish``, ``history``), whose two keys share one hash slot.
enum SharedCacheScripts {
    /// KEYS: epoch, generation. ARGV: prefix, id, epoch if none, generation if none, lease token,
    /// lease ms, generation lifetime ms, 1 to skip the page (a refresh: the lease alone).
    /// Returns `{1, epoch, gen, page, pttl}` for a page, `{2, epoch, gen}` when the lease was
    /// taken, `{3, epoch, gen}` when another holds it.
    static let read = RedisScript("""
    local epoch = redis.call('GET', KEYS[1])
    if not epoch then
      epoch = ARGV[3]
      redis.call('SET', KEYS[1], epoch)
    end
    local gen = redis.call('GET', KEYS[2])
    if not gen then
      gen = ARGV[4]
      redis.call('SET', KEYS[2], gen, 'PX', ARGV[7])
    end
    local suffix = epoch .. ':' .. gen .. ':' .. ARGV[2]
    if ARGV[8] ~= '1' then
      local pageKey = ARGV[1] .. 'page:' .. suffix
      local page = redis.call('GET', pageKey)
      if page then
        return {1, epoch, gen, page, redis.call('PTTL', pageKey)}
      end
    end
    if redis.call('SET', ARGV[1] .. 'lease:' .. suffix, ARGV[5], 'NX', 'PX', ARGV[6]) then
      return {2, epoch, gen}
    end
    return {3, epoch, gen}
    """)

    /// KEYS: epoch, generation, lease, page. ARGV: epoch, generation, lease token, value, page
    /// ms, generation lifetime ms, 1 to keep the lease (a completed page follows). Stores only
    /// for the lease holder, at the current tokens.
    static let store = RedisScript("""
    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
    if redis.call('GET', KEYS[3]) ~= ARGV[3] then return 0 end
    redis.call('SET', KEYS[4], ARGV[4], 'PX', ARGV[5])
    redis.call('PEXPIRE', KEYS[2], ARGV[6])
    if ARGV[7] ~= '1' then redis.call('DEL', KEYS[3]) end
    return 1
    """)

    /// KEYS: lease. ARGV: token, lease ms. Extends the lease if it is still this holder's.
    static let renew = RedisScript("""
    if redis.call('GET', KEYS[1]) == ARGV[1] then
      return redis.call('PEXPIRE', KEYS[1], ARGV[2])
    end
    return 0
    """)

    /// KEYS: lease. ARGV: token. Deletes the lease if it is still this holder's.
    static let release = RedisScript("""
    if redis.call('GET', KEYS[1]) == ARGV[1] then
      return redis.call('DEL', KEYS[1])
    end
    return 0
    """)

    /// KEYS: the invalidation sequence, the invalidation log (one hash slot). ARGV: log length,
    /// channel, the scope's payload, then the ids (none: everything). Logs the invalidation under
    /// a new sequence (Redis's clock in microseconds, never below the last one, so losing the
    /// sequence key cannot make it go back) and publishes `<sequence> <payload>`. A log that did
    /// not exist starts with a `<sequence> ~` marker: nothing before it is known. Returns
    /// `{sequence, receivers}`.
    static let publish = RedisScript("""
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
    return {s, redis.call('PUBLISH', ARGV[2], s .. ' ' .. ARGV[3])}
    """)

    /// KEYS: the invalidation sequence, the invalidation log. The log, oldest first; one that did
    /// not exist (a new fleet, or evicted) is started with its `~` marker at a new sequence.
    static let history = RedisScript("""
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
