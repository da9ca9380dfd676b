using System.Text;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR over the server's <see cref="LatencyMonitor"/>,
/// and LATENCY HISTOGRAM over the per-command <see cref="LatencyHistogram"/>s.
/// </summary>
internal static class LatencyCommands
{
    private static readonly HelpReply HelpText = new("LATENCY",
        "DOCTOR",
        "    A report, for people, on the latency events seen and what could help.",
        "GRAPH <event>",
        "    An ASCII chart of the samples of the <event> class.",
        "HISTORY <event>",
        "    The samples of the <event> class: Unix time and milliseconds.",
        "LATEST",
        "    For each event class, its newest sample and its worst ever.",
        "RESET [<event> ...]",
        "    Forget the samples of the given <event> classes.",
        "    (default: every event class)",
        "HISTOGRAM [COMMAND ...]",
        "    The cumulative distribution of the durations of the given commands, by power of two.",
        "    With no command, of every command that has run.");

    /// <summary>LATENCY LATEST — [event, time, latest ms, all-time max ms] per event.</summary>
    public static void Latest(ref CommandContext ctx)
    {
        var latest = ctx.Server.Latency.Latest();
        ctx.Reply.ArrayHeader(latest.Count);
        foreach (var (name, time, latency, max) in latest)
        {
            ctx.Reply.ArrayHeader(4);
            ctx.Reply.Bulk(name);
            ctx.Reply.Integer(time);
            ctx.Reply.Integer(latency);
            ctx.Reply.Integer(max);
        }
    }

    /// <summary>LATENCY HISTORY event — [time, ms] pairs, oldest first; empty for an unknown event (names are case-sensitive).</summary>
    public static void History(ref CommandContext ctx)
    {
        var samples = ctx.Server.Latency.History(ctx.ArgString(2));
        ctx.Reply.ArrayHeader(samples?.Count ?? 0);
        if (samples == null) return;
        foreach (var (time, latency) in samples)
        {
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Integer(time);
            ctx.Reply.Integer(latency);
        }
    }

    /// <summary>LATENCY RESET [event ...] — how many event series were dropped.</summary>
    public static void Reset(ref CommandContext ctx)
    {
        var monitor = ctx.Server.Latency;
        if (ctx.ArgCount == 2)
        {
            ctx.Reply.Integer(monitor.Reset(null));
            return;
        }
        long resets = 0;
        for (int a = 2; a < ctx.ArgCount; a++) resets += monitor.Reset(ctx.ArgString(a));
        ctx.Reply.Integer(resets);
    }

    /// <summary>LATENCY GRAPH event — the chart as verbatim text; an error for an event without samples.</summary>
    public static void Graph(ref CommandContext ctx)
    {
        string name = ctx.ArgString(2);
        string? graph = ctx.Server.Latency.Graph(name, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
        if (graph == null)
        {
            ctx.Error(RespErrors.LatencyNoSamples(name));
            return;
        }
        ctx.Reply.Verbatim(Encoding.Latin1.GetBytes(graph));
    }

    /// <summary>LATENCY DOCTOR — the report as verbatim text.</summary>
    public static void Doctor(ref CommandContext ctx)
    {
        var config = ctx.Server.Config;
        var context = new LatencyMonitor.DoctorContext(config.SlowlogLogSlowerThan, config.AppendFsync == "always", config.Hz,
            LatencyMonitor.HasAnonHugePages());
        string report = ctx.Server.Latency.Doctor(context, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
        ctx.Reply.Verbatim(Encoding.Latin1.GetBytes(report));
    }

    /// <summary>
    /// LATENCY HISTOGRAM [command ...] — a map from each command's full name to {calls, histogram_usec},
    /// for every command that has run (none named), or for the named ones and their subcommands; an
    /// unknown name or a command that has not run is left out.
    /// </summary>
    public static void Histogram(ref CommandContext ctx)
    {
        var server = ctx.Server;
        var chosen = new List<(CommandDef Def, LatencyHistogram Histogram)>();
        void Add(CommandDef def)
        {
            if (server.Latencies.Get(def.Id) is { } h) chosen.Add((def, h));
        }
        if (ctx.ArgCount == 2)
        {
            foreach (var def in server.Commands.All)
            {
                Add(def);
                if (def.Subcommands != null) foreach (var sub in def.Subcommands) Add(sub);
            }
        }
        else
        {
            for (int a = 2; a < ctx.ArgCount; a++)
            {
                var def = CommandFamily.FindByFullName(server.Commands, ctx.Arg(a));
                if (def == null) continue;
                Add(def);
                if (def.Subcommands != null) foreach (var sub in def.Subcommands) Add(sub);
            }
        }
        var counts = new long[LatencyHistogram.Slots];
        ctx.Reply.MapHeader(chosen.Count);
        foreach (var (def, histogram) in chosen)
        {
            long total = histogram.Snapshot(counts);
            var buckets = LatencyHistogram.Cumulative(counts, total);
            ctx.Reply.Bulk(def.FullName);
            ctx.Reply.MapHeader(2);
            ctx.Reply.Bulk("calls"u8);
            ctx.Reply.Integer(total);
            ctx.Reply.Bulk("histogram_usec"u8);
            ctx.Reply.MapHeader(buckets.Count);
            foreach (var (micros, cumulative) in buckets)
            {
                ctx.Reply.Integer(micros);
                ctx.Reply.Integer(cumulative);
            }
        }
    }

    /// <summary>LATENCY HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);
}
