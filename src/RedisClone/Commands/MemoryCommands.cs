using System.Text;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE, HELP. The figures are this server's own
/// accounting (Storage/MemoryMeter: keys, values and key tables by the capacity of their arrays),
/// the same that INFO's used_memory reports and maxmemory enforces, not an allocator's.
/// </summary>
internal static class MemoryCommands
{
    private static readonly HelpReply HelpText = new("MEMORY",
        "DOCTOR",
        "    Report what looks wrong with the server's memory, in plain words.",
        "MALLOC-STATS",
        "    Report the .NET garbage collector's figures (the allocator here).",
        "PURGE",
        "    Compact the heap and give the memory it frees back to the system.",
        "STATS",
        "    Report the server's memory figures as a map of names to values.",
        "USAGE <key> [SAMPLES <count>]",
        "    The bytes <key> and its value take by this server's accounting. <count> is",
        "    accepted as in Redis (0: all), but every value is measured whole.");

    /// <summary>MEMORY HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);

    /// <summary>
    /// MEMORY USAGE key [SAMPLES count] — the key's bytes by this server's accounting, or nil when
    /// it does not exist. Options are checked first, as in Redis: a count that is not an integer is
    /// the integer error, a negative one or any other word a syntax error. The count changes nothing
    /// here: values are measured exactly (by their arrays' capacities), never sampled.
    /// </summary>
    public static void Usage(ref CommandContext ctx)
    {
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            if (ctx.ArgIs(j, "SAMPLES") && j + 1 < ctx.ArgCount)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out long samples))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (samples < 0)
                {
                    ctx.Error(RespErrors.Syntax);
                    return;
                }
                j++;
                continue;
            }
            ctx.Error(RespErrors.Syntax);
            return;
        }
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        // Redis looks the key up without the expiry check or an access stamp.
        int slot = db.FindLiveNoTouch(key, ctx.NowMs);
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return;
        }
        ctx.Reply.Integer(db.MemoryUsage(slot));
    }

    /// <summary>
    /// MEMORY STATS — Redis 7.2's map, field for field: ours where this server has the figure
    /// (totals, startup, peak, clients' buffers, per-database key table overhead, keys, dataset,
    /// the GC's heap as the allocator's), 0 for machinery it does not have (replication backlog,
    /// replicas, cluster links, the AOF buffer, Lua caches).
    /// </summary>
    public static void Stats(ref CommandContext ctx)
    {
        var server = ctx.Server;
        var m = InfoBuilder.Memory(server);
        int databases = server.Options.Databases;
        var perDb = new List<(int Db, long Main, long Expires)>();
        long keys = 0;
        for (int d = 0; d < databases; d++)
        {
            long count = 0, main = 0, expires = 0;
            for (int s = 0; s < server.Shards.Count; s++)
            {
                var db = server.Shards[s].Store[d];
                count += db.Count;
                main += db.MainTableBytes;
                expires += db.ExpiryIndexBytes;
            }
            keys += count;
            if (count > 0) perDb.Add((d, main, expires));
        }
        long net = m.Used - m.Startup;
        var r = ctx.Reply;
        r.MapHeader(27 + perDb.Count);
        Pair(r, "peak.allocated"u8, m.Peak);
        Pair(r, "total.allocated"u8, m.Used);
        Pair(r, "startup.allocated"u8, m.Startup);
        Pair(r, "replication.backlog"u8, 0);
        Pair(r, "clients.slaves"u8, 0);
        Pair(r, "clients.normal"u8, m.ClientsNormal);
        Pair(r, "cluster.links"u8, 0);
        Pair(r, "aof.buffer"u8, 0);
        Pair(r, "lua.caches"u8, 0);
        Pair(r, "functions.caches"u8, 0);
        foreach (var (db, main, expires) in perDb)
        {
            r.Bulk(Encoding.ASCII.GetBytes("db." + db));
            r.MapHeader(3);
            Pair(r, "overhead.hashtable.main"u8, main);
            Pair(r, "overhead.hashtable.expires"u8, expires);
            Pair(r, "overhead.hashtable.slot-to-keys"u8, 0);
        }
        Pair(r, "overhead.total"u8, m.Overhead);
        Pair(r, "keys.count"u8, keys);
        Pair(r, "keys.bytes-per-key"u8, keys == 0 ? 0 : net / keys);
        Pair(r, "dataset.bytes"u8, m.Dataset);
        PairDouble(r, "dataset.percentage"u8, net <= 0 ? 0 : m.Dataset * 100.0 / net);
        PairDouble(r, "peak.percentage"u8, m.Peak == 0 ? 0 : m.Used * 100.0 / m.Peak);
        Pair(r, "allocator.allocated"u8, m.Heap);
        Pair(r, "allocator.active"u8, m.Committed);
        Pair(r, "allocator.resident"u8, m.Rss);
        PairDouble(r, "allocator-fragmentation.ratio"u8, (double)m.Committed / m.Heap);
        Pair(r, "allocator-fragmentation.bytes"u8, m.Committed - m.Heap);
        PairDouble(r, "allocator-rss.ratio"u8, (double)m.Rss / m.Committed);
        Pair(r, "allocator-rss.bytes"u8, m.Rss - m.Committed);
        PairDouble(r, "rss-overhead.ratio"u8, 1.0);
        Pair(r, "rss-overhead.bytes"u8, 0);
        PairDouble(r, "fragmentation"u8, m.Used == 0 ? 0 : (double)m.Rss / m.Used);
        Pair(r, "fragmentation.bytes"u8, m.Rss - m.Used);
    }

    private static void Pair(RespWriter r, ReadOnlySpan<byte> name, long value)
    {
        r.Bulk(name);
        r.Integer(value);
    }

    private static void PairDouble(RespWriter r, ReadOnlySpan<byte> name, double value)
    {
        r.Bulk(name);
        r.Double(value);
    }

    /// <summary>
    /// MEMORY DOCTOR — a short report in our own words, as a verbatim string: too little data to
    /// judge, or each problem found (a peak far above what is used now, a resident size far above
    /// the accounting, large client buffers), or that none was found.
    /// </summary>
    public static void Doctor(ref CommandContext ctx)
    {
        var m = InfoBuilder.Memory(ctx.Server);
        var report = new StringBuilder();
        if (m.Used < 5 * 1024 * 1024)
        {
            report.Append("This server holds too little data (under 5 MB by its accounting) for a memory report to mean anything. Ask again once it holds some.\n");
        }
        else
        {
            var problems = new List<string>();
            if (m.Peak > m.Used * 3 / 2)
                problems.Add($" * Peak memory: used memory peaked at {InfoBuilder.Human(m.Peak)}, more than 150% of the {InfoBuilder.Human(m.Used)} used now. The garbage collector gives freed memory back over time (MEMORY PURGE does it at once).");
            if (m.Rss > m.Used * 14 / 10)
                problems.Add($" * Resident size: the process holds {InfoBuilder.Human(m.Rss)}, more than 1.4 times the {InfoBuilder.Human(m.Used)} of data accounted for. The runtime, garbage not yet collected and client buffers make up the rest.");
            int clients = Math.Max(ctx.Server.Clients.Count, 1);
            if (m.ClientsNormal / clients > 200 * 1024)
                problems.Add($" * Client buffers: clients hold {InfoBuilder.Human(m.ClientsNormal)} of input and reply buffers, over 200 KB each on average. Look at CLIENT LIST for clients that do not read their replies or send very large commands.");
            if (problems.Count == 0)
                report.Append("No memory problems found: the accounting, the peak and the resident size look as they should.\n");
            else
            {
                report.Append("Memory problems found:\n\n");
                foreach (string p in problems) report.Append(p).Append("\n\n");
            }
        }
        ctx.Reply.Verbatim(Encoding.ASCII.GetBytes(report.ToString()));
    }

    /// <summary>
    /// MEMORY MALLOC-STATS — the .NET garbage collector's figures, as a verbatim string (Redis with
    /// jemalloc answers jemalloc's report in the same shape).
    /// </summary>
    public static void MallocStats(ref CommandContext ctx)
    {
        var gc = GC.GetGCMemoryInfo();
        var text = new StringBuilder();
        text.Append("___ Begin .NET GC statistics ___\n");
        text.Append("heap_size: ").Append(gc.HeapSizeBytes).Append('\n');
        text.Append("committed: ").Append(gc.TotalCommittedBytes).Append('\n');
        text.Append("fragmented: ").Append(gc.FragmentedBytes).Append('\n');
        text.Append("promoted: ").Append(gc.PromotedBytes).Append('\n');
        text.Append("total_allocated: ").Append(GC.GetTotalAllocatedBytes()).Append('\n');
        text.Append("total_available: ").Append(gc.TotalAvailableMemoryBytes).Append('\n');
        text.Append("collections: gen0=").Append(GC.CollectionCount(0)).Append(" gen1=").Append(GC.CollectionCount(1))
            .Append(" gen2=").Append(GC.CollectionCount(2)).Append('\n');
        var gens = gc.GenerationInfo;
        string[] names = ["gen0", "gen1", "gen2", "loh", "poh"];
        for (int g = 0; g < gens.Length && g < names.Length; g++)
            text.Append(names[g]).Append(": size_before=").Append(gens[g].SizeBeforeBytes).Append(" size_after=")
                .Append(gens[g].SizeAfterBytes).Append('\n');
        text.Append("server_gc: ").Append(System.Runtime.GCSettings.IsServerGC ? "yes" : "no").Append('\n');
        text.Append("--- End .NET GC statistics ---\n");
        ctx.Reply.Verbatim(Encoding.ASCII.GetBytes(text.ToString()));
    }

    /// <summary>MEMORY PURGE — a compacting collection, returning freed pages to the system (Redis asks jemalloc to purge). +OK.</summary>
    public static void Purge(ref CommandContext ctx)
    {
        System.Runtime.GCSettings.LargeObjectHeapCompactionMode = System.Runtime.GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
        ctx.Reply.Ok();
    }
}
