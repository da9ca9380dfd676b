using RedisClone.Commands;

namespace RedisClone.Server;

/// <summary>
/// Client eviction (<c>maxmemory-clients</c>), as Redis 7 does it: the memory every client holds
/// (receive buffer, parsed commands, reply buffers, MULTI queue) is added up, and while the sum is
/// at or over the limit the largest clients that allow it (not <c>CLIENT NO-EVICT</c>) are closed,
/// each logged and counted in INFO's <c>evicted_clients</c>.
/// </summary>
/// <remarks>
/// A client is re-measured on its own thread after each read and after each batch of commands, and
/// every client by the server's cron every 100 ms (replies that pile up while a client does not
/// read, pub/sub messages). Each measure swaps the client's <see cref="ClientSession.CountedMemory"/>
/// and adds the difference to the total, so the total is always the sum of what was counted and no
/// lock is taken unless the limit is reached. With the limit off (the default) a measure is one
/// configuration read.
/// </remarks>
internal sealed class ClientEviction(RedisServer server)
{
    /// <summary>Redis's floor, so that a bad setting cannot cut every client off.</summary>
    private const long MinimumLimit = 128 * 1024;

    private readonly object _evicting = new();
    private long _total;
    private long _evicted;

    /// <summary>INFO stats evicted_clients.</summary>
    public long Evicted => Volatile.Read(ref _evicted);

    /// <summary>CONFIG RESETSTAT: evicted_clients back to 0.</summary>
    public void ResetStats() => Interlocked.Exchange(ref _evicted, 0);

    /// <summary>The memory counted for every client now.</summary>
    public long Total => Volatile.Read(ref _total);

    /// <summary>The limit in bytes (a percentage of maxmemory resolved), or 0 when off.</summary>
    public long Limit
    {
        get
        {
            long setting = server.Config.MaxMemoryClients;
            if (setting == 0) return 0; // off: the common case, one read
            long limit = setting;
            if (setting < 0)
            {
                ulong maxMemory = server.Config.MaxMemory;
                if (maxMemory == 0) return 0; // a percentage of no limit
                limit = (long)Math.Min((double)maxMemory * -setting / 100, long.MaxValue);
            }
            return Math.Max(limit, MinimumLimit);
        }
    }

    /// <summary>Re-measures <paramref name="client"/>; evicts clients if the total reached the limit.</summary>
    public void Update(ClientSession client)
    {
        long limit = Limit;
        if (limit == 0) return;
        if (Count(client) >= limit) Evict(limit);
    }

    /// <summary>The cron's pass: every client re-measured, then eviction if needed.</summary>
    public void Cron()
    {
        long limit = Limit;
        if (limit == 0) return;
        long total = 0;
        foreach (var client in server.Clients.Values) total = Count(client);
        if (total >= limit) Evict(limit);
    }

    /// <summary>A client that ended: its memory no longer counts.</summary>
    public void Remove(ClientSession client) => Interlocked.Add(ref _total, -Interlocked.Exchange(ref client.CountedMemory, 0));

    private long Count(ClientSession client)
    {
        if (client.Killed) return Interlocked.Add(ref _total, -Interlocked.Exchange(ref client.CountedMemory, 0));
        long now = client.MeasureBuffers().AllocatedBytes + client.MultiMemoryBytes;
        return Interlocked.Add(ref _total, now - Interlocked.Exchange(ref client.CountedMemory, now));
    }

    private void Evict(long limit)
    {
        lock (_evicting)
        {
            if (Total < limit) return;
            var candidates = new List<ClientSession>();
            foreach (var client in server.Clients.Values)
                // Replicas are never evicted (Redis's clientEvictionAllowed: normal and pubsub clients only).
                if (!client.NoEvict && !client.Killed && !client.IsReplica) candidates.Add(client);
            // The largest first, as Redis takes them from its top memory bucket.
            candidates.Sort((a, b) => Volatile.Read(ref b.CountedMemory).CompareTo(Volatile.Read(ref a.CountedMemory)));
            foreach (var client in candidates)
            {
                if (Total < limit) return;
                long memory = Interlocked.Exchange(ref client.CountedMemory, 0);
                Interlocked.Add(ref _total, -memory);
                server.Log.Notice($"Evicting client: id={client.Id} addr={client.Address} laddr={client.LocalAddress} " +
                                  $"name={client.Name} db={client.Db} tot-mem={memory} cmd={client.LastCommand}");
                client.Kill();
                Interlocked.Increment(ref _evicted);
            }
            if (Total >= limit) server.Log.Warning("Over client maxmemory after evicting all evictable clients");
        }
    }
}
