using System.Runtime.CompilerServices;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Execution;

/// <summary>Which shards a command's keys map to, from its table entry (the range its key specs give, or its key finder).</summary>
internal static class KeyRouting
{
    /// <summary>The shards the keys of command <paramref name="i"/> of <paramref name="buffer"/> map to.</summary>
    [SkipLocalsInit]
    public static ulong ShardMask(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def, long nowMs)
    {
        var shards = server.Shards;
        if (def.Routing is Routing.AllShards or Routing.Script) return shards.AllMask;
        if (def.Routing == Routing.Connection) return 0;
        if (def.Routing == Routing.ScanCursor)
        {
            // The cursor's shard and every later one: a call goes on into the next shard when the
            // cursor's runs out before COUNT keys were seen (see KeyCommands.Scan).
            if (!ScanArguments.TryParseCursor(buffer.Arg(i, 1), out ulong cursor)) return 0;
            int first = (int)(cursor % (ulong)shards.Count);
            return shards.AllMask & ~((1UL << first) - 1);
        }
        if (shards.Count == 1) return 1;
        ulong mask = 0;
        if (def.KeyFinder == null)
        {
            // Fixed positions (nearly every command): no position list needed.
            int argc = buffer.ArgCount(i);
            int last = def.LastKey < 0 ? argc + def.LastKey : Math.Min(def.LastKey, argc - 1);
            for (int k = def.FirstKey; k > 0 && k <= last; k += def.Step)
                mask |= 1UL << shards.ShardOf(buffer.Arg(i, k));
            return mask;
        }
        Span<int> positions = stackalloc int[256];
        int count = Positions(server, session, buffer, i, def, nowMs, positions);
        if (count > positions.Length) return shards.AllMask; // more keys than we index: take every gate
        for (int k = 0; k < count; k++) mask |= 1UL << shards.ShardOf(buffer.Arg(i, positions[k]));
        return mask;
    }

    /// <summary>Argument indexes of the command's keys; a count above the span's length means "more than fit".</summary>
    public static int Positions(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def,
        long nowMs, Span<int> positions)
    {
        if (def.KeyFinder != null)
        {
            var ctx = new CommandContext(buffer, i, new RespWriter(NullBufferWriter.Instance, session.Protocol), session, server, nowMs);
            return def.KeyFinder(ref ctx, positions);
        }
        int argc = buffer.ArgCount(i);
        int last = def.LastKey < 0 ? argc + def.LastKey : Math.Min(def.LastKey, argc - 1);
        int n = 0;
        for (int k = def.FirstKey; k > 0 && k <= last; k += def.Step)
        {
            if (n < positions.Length) positions[n] = k;
            n++;
        }
        return n;
    }
}
