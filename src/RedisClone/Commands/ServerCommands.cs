using System.Net;
using System.Text;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// The server family: INFO, CONFIG, TIME, LASTSAVE, SHUTDOWN and CLUSTER (which answers that
/// cluster support is disabled). The COMMAND family lives in <see cref="CommandFamily"/>; its entry
/// points here only forward, so the table's rows stay in one family. DEBUG has its own family
/// file, <see cref="DebugCommands"/>.
/// </summary>
/// <remarks>
/// INFO, CONFIG, TIME, LASTSAVE, SHUTDOWN and CLUSTER run on the connection thread without gates
/// and read counters racily.
/// </remarks>
internal static class ServerCommands
{
    private static readonly HelpReply ConfigHelpReply = new("CONFIG",
        "GET <pattern>",
        "    Each parameter named by <pattern> (wildcards * ? [...] allowed), with its current",
        "    value. Several patterns may be given; a parameter matched twice is listed once.",
        "SET <directive> <value>",
        "    Change <directive> to <value>; several pairs may be given, and if one of them is",
        "    refused none is changed. Settings of features not built yet are stored only.",
        "RESETSTAT",
        "    Zero what INFO counts: commands, errors, keyspace hits and misses, expired keys.",
        "REWRITE",
        "    Saving the running settings to a config file is not supported yet: it replies",
        "    with an error.");

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
        for (int i = 0; i < pairs; i++)
        {
            // Turning the AOF on rewrites the dataset into a new base file (in the background) and
            // appends from this instant; turning it off stops appending. Done before the value is
            // stored, so a failure leaves the setting as it was.
            if (names[i].Equals("appendonly", StringComparison.OrdinalIgnoreCase)
                && (values[i].Equals("yes", StringComparison.OrdinalIgnoreCase) || values[i].Equals("no", StringComparison.OrdinalIgnoreCase))
                && values[i].Equals("yes", StringComparison.OrdinalIgnoreCase) != ctx.Server.Config.AppendOnly
                && ctx.Server.SetAppendOnly(values[i].Equals("yes", StringComparison.OrdinalIgnoreCase)) is { } failure)
            {
                ctx.Error($"ERR CONFIG SET failed (possibly related to argument '{names[i]}') - {failure}");
                return;
            }
        }
        string? error = ctx.Server.Config.SetFromClient(names, values, IsLocal(ctx.Client));
        if (error != null) ctx.Error(error);
        else ctx.Reply.Ok();
    }

    /// <summary>
    /// CONFIG RESETSTAT — zeroes what INFO counts: server counters, error counts, every command's
    /// commandstats and latency histogram, the shards' keyspace hits/misses and expired keys, the sampled rates.
    /// </summary>
    public static void ConfigResetStat(ref CommandContext ctx)
    {
        var server = ctx.Server;
        server.Stats.Reset();
        server.CommandStats.Reset();
        server.Latencies.Reset();
        // The shards bump these under their gates; a reset racing with a bump may lose that one count.
        for (int i = 0; i < server.Shards.Count; i++)
        {
            var store = server.Shards[i].Store;
            Interlocked.Exchange(ref store.KeyspaceHits, 0);
            Interlocked.Exchange(ref store.KeyspaceMisses, 0);
            Interlocked.Exchange(ref store.ExpiredKeys, 0);
            Interlocked.Exchange(ref store.ExpiredSubkeys, 0);
            Interlocked.Exchange(ref store.EvictedKeys, 0);
            server.Shards[i].ResetExpiryStats();
        }
        server.ClientEviction.ResetStats();
        server.Replication.Master.ResetStats();
        RuntimeStats.For(server).Reset();
        server.Evictor.ResetExceeded();
        ctx.Reply.Ok();
    }

    /// <summary>
    /// CONFIG REWRITE: the configuration file brought up to date with the running values, its
    /// comments and order kept (see <see cref="Server.Config.ConfigRegistry.Rewrite"/>).
    /// </summary>
    public static void ConfigRewrite(ref CommandContext ctx)
    {
        var server = ctx.Server;
        if (server.Options.ConfigFile == null)
        {
            ctx.Error(RespErrors.NoConfigFile);
            return;
        }
        string? error = Server.Config.ConfigFile.Rewrite(server);
        if (error != null)
        {
            server.Log.Warning($"CONFIG REWRITE failed: {error}");
            ctx.Error(RespErrors.RewritingConfigFile(error));
            return;
        }
        server.Log.Notice("CONFIG REWRITE executed with success.");
        ctx.Reply.Ok();
    }

    /// <summary>CONFIG HELP.</summary>
    public static void ConfigHelp(ref CommandContext ctx) => ConfigHelpReply.Write(ref ctx);

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
    /// <summary>
    /// ROLE — ["master", replication offset, replicas]: this server is always a master, with no
    /// replicas (replication is not built), so its offset is 0 and the list empty, as a fresh
    /// Redis master's.
    /// </summary>
    public static void Role(ref CommandContext ctx)
    {
        if (ctx.Server.Replication.IsReplica) ctx.Server.Replica.Role(ref ctx);
        else ctx.Server.Replication.Master.Role(ref ctx);
    }

    public static void LastSave(ref CommandContext ctx) => ctx.Reply.Integer(ctx.Server.Rdb.LastSaveUnix);

    // ---------------------------------------------------------------- SHUTDOWN, CLUSTER

    /// <summary>
    /// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] — stops the server (see Server/ServerShutdown): the
    /// caller gets no reply and its connection closes with the others once their replies are out.
    /// The RDB file is written with SAVE, or with save points unless NOSAVE; a failed save (or AOF
    /// being turned on, its first rewrite unfinished) keeps the server running with Redis's error,
    /// unless FORCE. NOW skips waiting for replicas, which this server does not have; ABORT cancels
    /// such a wait, so here there is never a shutdown in progress to abort.
    /// </summary>
    /// <remarks>
    /// The executor runs it on a thread pool thread (see BatchExecutor's AwaitScript): the stop
    /// waits for other clients' commands and takes every shard's gate.
    /// </remarks>
    public static void Shutdown(ref CommandContext ctx)
    {
        var flags = ShutdownFlags.None;
        bool abort = false;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            if (ctx.ArgIs(i, "NOSAVE")) flags |= ShutdownFlags.NoSave;
            else if (ctx.ArgIs(i, "SAVE")) flags |= ShutdownFlags.Save;
            else if (ctx.ArgIs(i, "NOW")) flags |= ShutdownFlags.Now;
            else if (ctx.ArgIs(i, "FORCE")) flags |= ShutdownFlags.Force;
            else if (ctx.ArgIs(i, "ABORT")) abort = true;
            else
            {
                ctx.Syntax();
                return;
            }
        }
        if ((abort && flags != ShutdownFlags.None) ||
            ((flags & ShutdownFlags.Save) != 0 && (flags & ShutdownFlags.NoSave) != 0))
        {
            ctx.Syntax();
            return;
        }
        if (abort)
        {
            ctx.Error(RespErrors.NoShutdownInProgress);
            return;
        }
        // Redis refuses a stop that may wait for replicas to a client that cannot block (inside
        // MULTI or a script); the command's flags keep it out of both before it gets here.
        // While a script is busy only SHUTDOWN NOSAVE may stop the server (it kills the script).
        if ((flags & ShutdownFlags.NoSave) == 0 && Scripting.ScriptCommands.BusyError(ctx.Server.ScriptWatchdog.BusyKind) is { } busy)
        {
            ctx.Error(busy);
            return;
        }
        if (!ctx.Server.Shutdown.Run(flags, ctx.Client))
        {
            ctx.Error(RespErrors.ShutdownErrors);
            return;
        }
        ctx.Client.CloseAfterReply = true;
    }


    // ---------------------------------------------------------------- helpers

    /// <summary>Redis's "local" protected-action rule: the client came over the loopback interface or the Unix socket.</summary>
    internal static bool IsLocal(ClientSession client)
    {
        if (client.UnixSocket) return true;
        string address = client.Address;
        int colon = address.LastIndexOf(':');
        if (colon <= 0) return false;
        string host = address.Substring(0, colon).Trim('[', ']');
        return IPAddress.TryParse(host, out var ip) && IPAddress.IsLoopback(ip);
    }
}
