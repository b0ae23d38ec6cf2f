import Redis

/// The Lua scripts of the shared cache. Each runs atomically in Redis, which is what makes a read
/// with its lease attempt, and a store with its checks, one step for the whole fleet.
///
/// Keys other than the epoch and generation are built inside the scripts from the tokens just
/// read (a standalone Redis allows that; Redis Cluster is not supported).
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

    /// KEYS: the epoch or a generation. ARGV: new token, lifetime ms (0: none), channel, message.
    /// Returns how many subscribers received the message.
    static let invalidate = RedisScript("""
    if ARGV[2] == '0' then
      redis.call('SET', KEYS[1], ARGV[1])
    else
      redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    end
    return redis.call('PUBLISH', ARGV[3], ARGV[4])
    """)

    /// KEYS: generations. ARGV: new token prefix, lifetime ms, channel, message. Each key gets
    /// the token with its position appended; returns how many subscribers received the message.
    static let invalidateEach = RedisScript("""
    for i, key in ipairs(KEYS) do
      redis.call('SET', key, ARGV[1] .. '-' .. i, 'PX', ARGV[2])
    end
    return redis.call('PUBLISH', ARGV[3], ARGV[4])
    """)
}
