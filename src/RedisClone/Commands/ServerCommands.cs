using System.Net;
using System.Runtime.CompilerServices;
using System.Text;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;
using RedisClone.Server.Config;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// The server family: INFO, CONFIG, TIME, LASTSAVE, DEBUG, SHUTDOWN and CLUSTER (which answers that
/// cluster support is disabled). The COMMAND family lives in <see cref="CommandFamily"/>; its entry
/// points here only forward, so the table's rows stay in one family.
/// </summary>
/// <remarks>
/// INFO, CONFIG, TIME, LASTSAVE, SHUTDOWN and CLUSTER run on the connection thread without gates
/// and read counters racily. DEBUG runs with every shard's gate held: DEBUG SLEEP stops the whole
/// keyspace, as it stops Redis's single thread.
/// </remarks>
internal static class ServerCommands
{
    private static ReadOnlySpan<byte> NoConfigFile => "-ERR The server is running without a config file\r\n"u8;
    private static ReadOnlySpan<byte> RewriteUnsupported => "-ERR Rewriting config file: Operation not supported\r\n"u8;
    private static ReadOnlySpan<byte> NoShutdownInProgress => "-ERR No shutdown in progress.\r\n"u8;
    private static ReadOnlySpan<byte> DebugNotAllowed =>
        "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.\r\n"u8;

    private static readonly string[] ConfigHelpLines =
    [
        "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        "HELP",
        "    Prints this help.",
    ];

    private static readonly string[] DebugHelpLines =
    [
        "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "HELP",
        "    Prints this help.",
    ];

    /// <summary>
    /// The handler of a container row (CLIENT, CONFIG, OBJECT...). The dispatcher resolves every
    /// subcommand itself, so this only answers if a container is ever run directly.
    /// </summary>
    public static void Help(ref CommandContext ctx)
    {
        if (ctx.ArgCount < 2) ctx.Error(RespErrors.WrongArity(ctx.ArgString(0).ToLowerInvariant()));
        else ctx.Error(RespErrors.UnknownSubcommand(ctx.Arg(1), ctx.ArgString(0)));
    }

    // ---------------------------------------------------------------- INFO

    /// <summary>INFO [section [section ...]] — the server's state as "key:value" lines (verbatim text in RESP3).</summary>
    public static void Info(ref CommandContext ctx)
    {
        var sections = new string[ctx.ArgCount - 1];
        for (int i = 1; i < ctx.ArgCount; i++) sections[i - 1] = ctx.ArgString(i);
        string text = InfoBuilder.Build(ctx.Server, sections, ctx.NowMs);
        ctx.Reply.Verbatim(Encoding.Latin1.GetBytes(text));
    }

    // ---------------------------------------------------------------- CONFIG

    /// <summary>CONFIG GET parameter [parameter ...] — matching names and values (glob patterns allowed); a map in RESP3.</summary>
    public static void ConfigGet(ref CommandContext ctx)
    {
        var patterns = new byte[ctx.ArgCount - 2][];
        for (int i = 2; i < ctx.ArgCount; i++) patterns[i - 2] = ctx.Arg(i).ToArray();
        var found = ctx.Server.Config.Match(patterns);
        ctx.Reply.MapHeader(found.Count);
        foreach (var (name, value) in found)
        {
            ctx.Reply.Bulk(Encoding.Latin1.GetBytes(name));
            ctx.Reply.Bulk(Encoding.Latin1.GetBytes(value));
        }
    }

    /// <summary>CONFIG SET parameter value [parameter value ...] — all of them or none.</summary>
    public static void ConfigSet(ref CommandContext ctx)
    {
        if ((ctx.ArgCount & 1) != 0)
        {
            ctx.Syntax();
            return;
        }
        int pairs = (ctx.ArgCount - 2) / 2;
        var names = new string[pairs];
        var values = new string[pairs];
        for (int i = 0; i < pairs; i++)
        {
            names[i] = ctx.ArgString(2 + 2 * i);
            values[i] = ctx.ArgString(3 + 2 * i);
        }
        string? error = ctx.Server.Config.SetFromClient(names, values, IsLocal(ctx.Client));
        if (error != null) ctx.Error(error);
        else ctx.Reply.Ok();
    }

    /// <summary>
    /// CONFIG RESETSTAT — zeroes what INFO counts: server counters, error counts, every command's
    /// commandstats, the shards' keyspace hits/misses and expired keys, the sampled rates.
    /// </summary>
    public static void ConfigResetStat(ref CommandContext ctx)
    {
        var server = ctx.Server;
        server.Stats.Reset();
        server.CommandStats.Reset();
        // The shards bump these under their gates; a reset racing with a bump may lose that one count.
        for (int i = 0; i < server.Shards.Count; i++)
        {
            var store = server.Shards[i].Store;
            Interlocked.Exchange(ref store.KeyspaceHits, 0);
            Interlocked.Exchange(ref store.KeyspaceMisses, 0);
            Interlocked.Exchange(ref store.ExpiredKeys, 0);
        }
        RuntimeStats.For(server).Reset();
        ctx.Reply.Ok();
    }

    /// <summary>CONFIG REWRITE — there is nothing to rewrite without a config file; rewriting one is not supported yet.</summary>
    public static void ConfigRewrite(ref CommandContext ctx)
    {
        if (ctx.Server.Options.ConfigFile == null) ctx.Error(NoConfigFile);
        else ctx.Error(RewriteUnsupported);
    }

    /// <summary>CONFIG HELP.</summary>
    public static void ConfigHelp(ref CommandContext ctx) => ReplyHelp(ref ctx, ConfigHelpLines);

    // ---------------------------------------------------------------- COMMAND (see CommandFamily)

    /// <summary>COMMAND — see <see cref="CommandFamily.Command"/>.</summary>
    public static void Command(ref CommandContext ctx) => CommandFamily.Command(ref ctx);

    /// <summary>COMMAND COUNT — see <see cref="CommandFamily.CommandCount"/>.</summary>
    public static void CommandCount(ref CommandContext ctx) => CommandFamily.CommandCount(ref ctx);

    /// <summary>COMMAND DOCS [command-name ...] — see <see cref="CommandFamily.CommandDocs"/>.</summary>
    public static void CommandDocs(ref CommandContext ctx) => CommandFamily.CommandDocs(ref ctx);

    /// <summary>COMMAND GETKEYS command [arg ...] — see <see cref="CommandFamily.CommandGetKeys"/>.</summary>
    public static void CommandGetKeys(ref CommandContext ctx) => CommandFamily.CommandGetKeys(ref ctx);

    /// <summary>COMMAND GETKEYSANDFLAGS command [arg ...] — see <see cref="CommandFamily.CommandGetKeysAndFlags"/>.</summary>
    public static void CommandGetKeysAndFlags(ref CommandContext ctx) => CommandFamily.CommandGetKeysAndFlags(ref ctx);

    /// <summary>COMMAND INFO [command-name ...] — see <see cref="CommandFamily.CommandInfo"/>.</summary>
    public static void CommandInfo(ref CommandContext ctx) => CommandFamily.CommandInfo(ref ctx);

    /// <summary>COMMAND LIST [FILTERBY ...] — see <see cref="CommandFamily.CommandList"/>.</summary>
    public static void CommandList(ref CommandContext ctx) => CommandFamily.CommandList(ref ctx);

    /// <summary>COMMAND HELP — see <see cref="CommandFamily.CommandHelp"/>.</summary>
    public static void CommandHelp(ref CommandContext ctx) => CommandFamily.CommandHelp(ref ctx);

    // ---------------------------------------------------------------- TIME, LASTSAVE

    /// <summary>TIME — [unix seconds, microseconds] as two bulk strings.</summary>
    public static void Time(ref CommandContext ctx)
    {
        long micros = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks / 10;
        ctx.Reply.ArrayHeader(2);
        ctx.Reply.BulkInteger(micros / 1_000_000);
        ctx.Reply.BulkInteger(micros % 1_000_000);
    }

    /// <summary>LASTSAVE — unix time of the last successful save (the start time while nothing is persisted).</summary>
    public static void LastSave(ref CommandContext ctx) => ctx.Reply.Integer(ctx.Server.LastSaveUnix);

    // ---------------------------------------------------------------- DEBUG

    /// <summary>
    /// DEBUG SLEEP seconds | OBJECT key | SET-ACTIVE-EXPIRE 0|1 | HELP — allowed only when
    /// enable-debug-command is yes (or local, from a loopback client), as in Redis.
    /// </summary>
    /// <remarks>Runs with every gate held (Routing.AllShards), so SLEEP blocks every key, as Redis's does.</remarks>
    public static void Debug(ref CommandContext ctx)
    {
        if (!ConfigRegistry.ProtectedActionAllowed(ctx.Server.Config.EnableDebugCommand, IsLocal(ctx.Client)))
        {
            ctx.Error(DebugNotAllowed);
            return;
        }
        if (ctx.ArgCount == 2 && ctx.ArgIs(1, "HELP"))
        {
            ReplyHelp(ref ctx, DebugHelpLines);
        }
        else if (ctx.ArgCount == 3 && ctx.ArgIs(1, "SLEEP"))
        {
            // strtod semantics: the longest numeric prefix, 0 when there is none; negative sleeps not at all.
            double seconds = ParseDoublePrefix(ctx.Arg(2));
            if (seconds > 0) Thread.Sleep(TimeSpan.FromTicks((long)Math.Min(seconds * TimeSpan.TicksPerSecond, TimeSpan.MaxValue.Ticks / 2)));
            ctx.Reply.Ok();
        }
        else if (ctx.ArgCount == 3 && ctx.ArgIs(1, "SET-ACTIVE-EXPIRE"))
        {
            bool on = (long)ParseDoublePrefix(ctx.Arg(2)) != 0; // atoi
            for (int i = 0; i < ctx.Server.Shards.Count; i++) ctx.Server.Shards[i].ActiveExpiry = on;
            ctx.Reply.Ok();
        }
        else if (ctx.ArgCount == 3 && ctx.ArgIs(1, "OBJECT"))
        {
            DebugObject(ref ctx);
        }
        else
        {
            ctx.Error($"ERR unknown subcommand or wrong number of arguments for '{RespErrors.Truncate(ctx.Arg(1), 128)}'. Try DEBUG HELP.");
        }
    }

    /// <summary>
    /// DEBUG OBJECT key — "Value at:... refcount:N encoding:E serializedlength:N lru:N lru_seconds_idle:N".
    /// Like Redis it looks the key up without expiring it. serializedlength is the RDB size of the
    /// value without LZF compression (Redis compresses strings over 20 bytes when that helps), and 0
    /// for types whose RDB encoding does not exist yet.
    /// </summary>
    private static void DebugObject(ref CommandContext ctx)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = db.Table.Find(key);
        if (slot < 0)
        {
            ctx.Error(RespErrors.NoSuchKey);
            return;
        }
        ref var entry = ref db.Table.At(slot);
        bool raw = (entry.HashAndFlag & KeyTable.RawFlag) != 0;
        object value = entry.Value;
        uint stamp = db.Table.LastAccess(slot);
        long serialized = value is byte[] bytes ? SerializedStringLength(bytes) : 0;
        ctx.Reply.SimpleString(
            $"Value at:0x{RuntimeHelpers.GetHashCode(value):x} refcount:{ValueTypes.RefCount(value, raw)} " +
            $"encoding:{ValueTypes.EncodingName(value, raw)} serializedlength:{serialized} " +
            $"lru:{stamp & 0xFFFFFF} lru_seconds_idle:{LruClock.SecondsSince(stamp)}");
    }

    /// <summary>RDB size of a string: integers in 32-bit range as 1-, 2- or 4-byte ints after a type byte, else length + bytes.</summary>
    private static long SerializedStringLength(byte[] s)
    {
        if (s.Length <= 11 && RedisNumbers.TryParseInt64(s, out long n))
        {
            if (n >= sbyte.MinValue && n <= sbyte.MaxValue) return 2;
            if (n >= short.MinValue && n <= short.MaxValue) return 3;
            if (n >= int.MinValue && n <= int.MaxValue) return 5;
        }
        long len = s.Length;
        long header = len < 64 ? 1 : len < 16384 ? 2 : len <= uint.MaxValue ? 5 : 9;
        return header + len;
    }

    /// <summary>C's strtod on a prefix: digits with optional sign, fraction and exponent; 0 when nothing parses.</summary>
    private static double ParseDoublePrefix(ReadOnlySpan<byte> text)
    {
        int i = 0;
        while (i < text.Length && (text[i] == ' ' || text[i] == '\t')) i++;
        int start = i;
        if (i < text.Length && (text[i] == '+' || text[i] == '-')) i++;
        int digits = 0;
        while (i < text.Length && text[i] >= '0' && text[i] <= '9') { i++; digits++; }
        if (i < text.Length && text[i] == '.')
        {
            i++;
            while (i < text.Length && text[i] >= '0' && text[i] <= '9') { i++; digits++; }
        }
        if (digits == 0) return 0;
        int end = i;
        if (i < text.Length && (text[i] == 'e' || text[i] == 'E'))
        {
            int j = i + 1;
            if (j < text.Length && (text[j] == '+' || text[j] == '-')) j++;
            int expDigits = 0;
            while (j < text.Length && text[j] >= '0' && text[j] <= '9') { j++; expDigits++; }
            if (expDigits > 0) end = j;
        }
        return double.TryParse(Encoding.ASCII.GetString(text.Slice(start, end - start)),
            System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double v) ? v : 0;
    }

    // ---------------------------------------------------------------- SHUTDOWN, CLUSTER

    /// <summary>
    /// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] — stops the server; the caller gets no reply, its
    /// connection closes with all the others. Nothing is saved: there is no persistence yet, so SAVE
    /// and NOSAVE only differ in being validated. ABORT finds no shutdown in progress, since a
    /// shutdown here does not wait for replicas.
    /// </summary>
    public static void Shutdown(ref CommandContext ctx)
    {
        bool save = false, noSave = false, other = false, abort = false;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            if (ctx.ArgIs(i, "NOSAVE")) noSave = true;
            else if (ctx.ArgIs(i, "SAVE")) save = true;
            else if (ctx.ArgIs(i, "NOW") || ctx.ArgIs(i, "FORCE")) other = true;
            else if (ctx.ArgIs(i, "ABORT")) abort = true;
            else
            {
                ctx.Syntax();
                return;
            }
        }
        if ((abort && (save || noSave || other)) || (save && noSave))
        {
            ctx.Syntax();
            return;
        }
        if (abort)
        {
            ctx.Error(NoShutdownInProgress);
            return;
        }
        ctx.Client.CloseAfterReply = true;
        var server = ctx.Server;
        // StopAsync closes every connection, this one included: it must not run on this thread.
        _ = Task.Run(server.StopAsync);
    }

    /// <summary>CLUSTER subcommand ... — every subcommand: cluster support is disabled (standalone mode).</summary>
    public static void Cluster(ref CommandContext ctx) => ctx.Error(RespErrors.ClusterDisabled);

    // ---------------------------------------------------------------- helpers

    private static void ReplyHelp(ref CommandContext ctx, string[] lines)
    {
        ctx.Reply.ArrayHeader(lines.Length);
        foreach (string line in lines) ctx.Reply.SimpleString(line);
    }

    /// <summary>Redis's "local" protected-action rule: the client came over the loopback interface.</summary>
    internal static bool IsLocal(ClientSession client)
    {
        string address = client.Address;
        int colon = address.LastIndexOf(':');
        if (colon <= 0) return false;
        string host = address.Substring(0, colon).Trim('[', ']');
        return IPAddress.TryParse(host, out var ip) && IPAddress.IsLoopback(ip);
    }
}
