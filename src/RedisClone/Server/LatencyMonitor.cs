using System.Globalization;
using System.Text;

namespace RedisClone.Server;

/// <summary>
/// The latency monitor behind LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR: for each named
/// event (a command that ran long, an expiry cycle, an AOF write or fsync), the worst latency of
/// each second it happened in, the latest 160 of them, and the worst ever.
/// </summary>
/// <remarks>
/// <para>
/// Samples are only taken at or above <c>latency-monitor-threshold</c> milliseconds (0 turns the
/// monitor off), so this is never on a fast path: one lock is enough. Series are created when an
/// event first happens and listed in that order (Redis lists its dictionary's order).
/// </para>
/// <para>
/// The events recorded here, each where this server has Redis's step: <c>command</c> and
/// <c>fast-command</c> (every command, by its fast flag), <c>expire-cycle</c> (a shard's active
/// expiry cycle), <c>aof-write</c> with <c>aof-write-alone</c> and <c>aof-fsync-always</c> (the AOF
/// writer), <c>eviction-cycle</c> and <c>eviction-del</c> for eviction (<see cref="Events"/>).
/// </para>
/// </remarks>
internal sealed class LatencyMonitor
{
    /// <summary>LATENCY_TS_LEN: samples kept per event.</summary>
    public const int HistoryLength = 160;

    /// <summary>The names of the events this server records (Redis's names).</summary>
    public static class Events
    {
        public const string Command = "command";
        public const string FastCommand = "fast-command";
        public const string ExpireCycle = "expire-cycle";
        public const string AofWrite = "aof-write";
        public const string AofWriteAlone = "aof-write-alone";
        public const string AofFsyncAlways = "aof-fsync-always";
        /// <summary>For eviction, when maxmemory evicts keys (the hook for that cycle).</summary>
        public const string EvictionCycle = "eviction-cycle";
        public const string EvictionDel = "eviction-del";
    }

    /// <summary>One event's samples: a ring of (unix second, ms) with the next slot to write, and the worst ever.</summary>
    private sealed class Series
    {
        public readonly long[] Times = new long[HistoryLength];
        public readonly long[] Latencies = new long[HistoryLength];
        public int Next;
        public long Max;
    }

    private readonly Func<long> _threshold;
    private readonly List<(string Name, Series Series)> _events = new();
    private readonly object _lock = new();

    /// <param name="threshold">latency-monitor-threshold as configured now (milliseconds).</param>
    public LatencyMonitor(Func<long> threshold) => _threshold = threshold;

    /// <summary>latency-monitor-threshold now; 0 when the monitor is off.</summary>
    public long Threshold => _threshold();

    /// <summary>Records <paramref name="milliseconds"/> for <paramref name="name"/> if the monitor is on and it reaches the threshold.</summary>
    public void AddIfNeeded(string name, long milliseconds)
    {
        long threshold = _threshold();
        if (threshold > 0 && milliseconds >= threshold) Add(name, milliseconds, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
    }

    /// <summary>Adds a sample: a second that already has one keeps the larger.</summary>
    public void Add(string name, long milliseconds, long unixSeconds)
    {
        lock (_lock)
        {
            var s = Find(name);
            if (s == null)
            {
                s = new Series();
                _events.Add((name, s));
            }
            if (milliseconds > s.Max) s.Max = milliseconds;
            int previous = (s.Next + HistoryLength - 1) % HistoryLength;
            if (s.Times[previous] == unixSeconds)
            {
                if (milliseconds > s.Latencies[previous]) s.Latencies[previous] = milliseconds;
                return;
            }
            s.Times[s.Next] = unixSeconds;
            s.Latencies[s.Next] = milliseconds;
            s.Next = (s.Next + 1) % HistoryLength;
        }
    }

    private Series? Find(string name)
    {
        foreach (var (n, s) in _events)
            if (n == name) return s;
        return null;
    }

    /// <summary>LATENCY LATEST: per event its name, the time and latency of its newest sample, and its worst.</summary>
    public List<(string Name, long Time, long Latency, long Max)> Latest()
    {
        lock (_lock)
        {
            var list = new List<(string, long, long, long)>(_events.Count);
            foreach (var (name, s) in _events)
            {
                int last = (s.Next + HistoryLength - 1) % HistoryLength;
                list.Add((name, s.Times[last], s.Latencies[last], s.Max));
            }
            return list;
        }
    }

    /// <summary>LATENCY HISTORY: the event's samples, oldest first; null when it has none.</summary>
    public List<(long Time, long Latency)>? History(string name)
    {
        lock (_lock)
        {
            var s = Find(name);
            if (s == null) return null;
            var list = new List<(long, long)>();
            for (int j = 0; j < HistoryLength; j++)
            {
                int i = (s.Next + j) % HistoryLength;
                if (s.Times[i] != 0) list.Add((s.Times[i], s.Latencies[i]));
            }
            return list;
        }
    }

    /// <summary>Drops the named event (names compare case-insensitively, as Redis's reset does), or every event when null; how many were dropped.</summary>
    public int Reset(string? name)
    {
        lock (_lock)
            return _events.RemoveAll(e => name == null || string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase));
    }

    // ------------------------------------------------------------------ GRAPH

    private const int GraphColumns = 80;
    private const int GraphRows = 4;

    /// <summary>
    /// LATENCY GRAPH: a title line, a rule, then the samples as columns of a four-row ASCII chart
    /// (80 columns a block) with each sample's age written vertically under it; null when the event
    /// has no samples. The same characters and layout as Redis's sparkline.
    /// </summary>
    public string? Graph(string name, long nowSeconds)
    {
        string? found = null;
        var values = new List<long>();
        var labels = new List<string>();
        long max;
        lock (_lock)
        {
            Series? s = null;
            foreach (var (n, series) in _events)
                if (n == name) (found, s) = (n, series);
            if (s == null) return null;
            max = s.Max;
            for (int j = 0; j < HistoryLength; j++)
            {
                int i = (s.Next + j) % HistoryLength;
                if (s.Times[i] == 0) continue;
                values.Add(s.Latencies[i]);
                labels.Add(Age(nowSeconds - s.Times[i]));
            }
        }
        long high = values.Count == 0 ? 0 : values.Max(), low = values.Count == 0 ? 0 : values.Min();
        var sb = new StringBuilder();
        sb.Append(found).Append(" - high ").Append(high).Append(" ms, low ").Append(low)
          .Append(" ms (all time high ").Append(max).Append(" ms)\n");
        sb.Append('-', GraphColumns).Append('\n');
        for (int from = 0; from < values.Count; from += GraphColumns)
        {
            if (from != 0) sb.Append('\n');
            RenderBlock(sb, values, labels, from, Math.Min(GraphColumns, values.Count - from), low, high);
        }
        return sb.ToString();
    }

    /// <summary>"12s", "5m", "3h", "2d": how long ago a sample was taken.</summary>
    private static string Age(long elapsed)
        => elapsed < 60 ? $"{elapsed}s"
        : elapsed < 3600 ? $"{elapsed / 60}m"
        : elapsed < 86400 ? $"{elapsed / 3600}h"
        : $"{elapsed / 86400}d";

    /// <summary>
    /// One block of columns. Each value gets a level from 0 to 11 (three characters per row, four
    /// rows) scaled between the lowest and highest value of the whole graph; its column shows '_',
    /// 'o' or '#' in the row its level falls in and '|' in the rows below. Then one blank line and
    /// the labels, one character per line.
    /// </summary>
    private static void RenderBlock(StringBuilder sb, List<long> values, List<string> labels, int from, int count, long low, long high)
    {
        const string fill = "_o#";
        int steps = fill.Length * GraphRows;
        double range = high - low == 0 ? 1 : high - low;
        var line = new char[count];
        for (int row = 0; row < GraphRows; row++)
        {
            for (int j = 0; j < count; j++)
            {
                int step = (int)((double)(values[from + j] - low) * steps / range);
                step = Math.Clamp(step, 0, steps - 1);
                int index = step - (GraphRows - row - 1) * fill.Length;
                line[j] = index < 0 ? ' ' : index < fill.Length ? fill[index] : '|';
            }
            sb.Append(line).Append('\n');
        }
        sb.Append(' ', count).Append('\n');
        int longest = 0;
        for (int j = 0; j < count; j++) longest = Math.Max(longest, labels[from + j].Length);
        for (int c = 0; c < longest; c++)
        {
            for (int j = 0; j < count; j++)
            {
                string label = labels[from + j];
                line[j] = c < label.Length ? label[c] : ' ';
            }
            sb.Append(line).Append('\n');
        }
    }

    // ------------------------------------------------------------------ DOCTOR

    /// <summary>What DOCTOR needs to know about the server besides the samples.</summary>
    public readonly record struct DoctorContext(long SlowlogLogSlowerThan, bool FsyncAlways, long Hz, bool TransparentHugePages);

    [Flags]
    private enum Advice
    {
        None = 0,
        SlowlogEnable = 1 << 0,
        SlowlogTune = 1 << 1,
        SlowlogInspect = 1 << 2,
        Scheduler = 1 << 3,
        LocalDisk = 1 << 4,
        Ssd = 1 << 5,
        DataWriteback = 1 << 6,
        DiskContention = 1 << 7,
        NoAppendfsync = 1 << 8,
        RelaxFsync = 1 << 9,
        WriteLoad = 1 << 10,
        Hz = 1 << 11,
        LargeObjects = 1 << 12,
        MassEviction = 1 << 13,
        DisableThp = 1 << 14,
    }

    /// <summary>
    /// LATENCY DOCTOR: Redis's report. When the monitor is off and has nothing, the sentence that says
    /// so; otherwise one numbered line per event (spikes, average, mean deviation, period, worst),
    /// then the advice those events call for. The framing sentences and the per-event line are
    /// Redis's (tools match them); the advice is in our words.
    /// </summary>
    public string Doctor(DoctorContext context, long nowSeconds)
    {
        var sb = new StringBuilder();
        List<(string Name, Series Series)> events;
        lock (_lock)
        {
            if (_events.Count == 0 && Threshold == 0)
                return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
            events = _events.Select(e => (e.Name, Copy(e.Series))).ToList();
        }
        var advice = Advice.None;
        int count = 0;
        int number = 0;
        void Need(Advice a, int n)
        {
            advice |= a;
            count += n;
        }
        foreach (var (name, s) in events)
        {
            if (++number == 1)
                sb.Append("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
            var (samples, avg, mad, period) = Analyze(s, nowSeconds);
            sb.Append(number).Append(". ").Append(name).Append(": ").Append(samples)
              .Append(" latency spikes (average ").Append(avg).Append("ms, mean deviation ").Append(mad)
              .Append("ms, period ").Append((samples == 0 ? 0 : (double)period / samples).ToString("F2", CultureInfo.InvariantCulture))
              .Append(" sec). Worst all time event ").Append(s.Max).Append("ms.");
            switch (name.ToLowerInvariant())
            {
                case Events.Command:
                    if (context.SlowlogLogSlowerThan < 0) Need(Advice.SlowlogEnable, 1);
                    else if (context.SlowlogLogSlowerThan / 1000 > Threshold) Need(Advice.SlowlogTune, 1);
                    Need(Advice.SlowlogInspect | Advice.LargeObjects, 2);
                    break;
                case Events.FastCommand:
                    Need(Advice.Scheduler, 1);
                    break;
                case "aof-write-pending-fsync":
                    Need(Advice.LocalDisk | Advice.DiskContention | Advice.Ssd | Advice.DataWriteback, 4);
                    break;
                case "aof-write-active-child":
                    Need(Advice.NoAppendfsync | Advice.DataWriteback | Advice.Ssd, 3);
                    break;
                case Events.AofWriteAlone:
                    Need(Advice.LocalDisk | Advice.DataWriteback | Advice.Ssd, 3);
                    break;
                case Events.AofFsyncAlways:
                    Need(Advice.RelaxFsync, 1);
                    break;
                case "aof-fstat":
                case "rdb-unlink-temp-file":
                    Need(Advice.DiskContention | Advice.LocalDisk, 2);
                    break;
                case "aof-rewrite-diff-write":
                case "aof-rename":
                    Need(Advice.WriteLoad | Advice.DataWriteback | Advice.Ssd | Advice.LocalDisk, 4);
                    break;
                case Events.ExpireCycle:
                    Need(Advice.Hz | Advice.LargeObjects, 2);
                    break;
                case Events.EvictionDel:
                    Need(Advice.LargeObjects, 1);
                    break;
                case Events.EvictionCycle:
                    Need(Advice.MassEviction, 1);
                    break;
            }
            sb.Append('\n');
        }
        if (context.TransparentHugePages) Need(Advice.DisableThp, 1);

        if (number == 0 && count == 0)
        {
            sb.Append("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
            return sb.ToString();
        }
        if (number > 0 && count == 0)
        {
            sb.Append("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n");
            return sb.ToString();
        }
        sb.Append("\nI have a few advices for you:\n\n");
        long threshold = Threshold;
        if ((advice & Advice.SlowlogEnable) != 0)
            sb.Append("- Some commands run longer than the latency threshold and the Slow Log is off, so nothing records which ones. Turn it on with 'CONFIG SET slowlog-log-slower-than ")
              .Append(threshold * 1000).Append("'.\n");
        if ((advice & Advice.SlowlogTune) != 0)
            sb.Append("- The Slow Log's limit is above the latency monitor threshold, so it misses commands the monitor records. Lower it with 'CONFIG SET slowlog-log-slower-than ")
              .Append(threshold * 1000).Append("'.\n");
        if ((advice & Advice.SlowlogInspect) != 0)
            sb.Append("- Read the Slow Log (SLOWLOG GET) to see which commands take long; see https://redis.io/commands/slowlog.\n");
        if ((advice & Advice.Scheduler) != 0)
            sb.Append("- Commands that should take microseconds took milliseconds: the process is not getting the CPU when it needs it. You could:\n"
                + "  1) Lower the load on the machine.\n"
                + "  2) Give the server a machine or VM of its own.\n"
                + "  3) Look for a \"noisy neighbour\" on shared hardware.\n"
                + "  4) Measure the machine's own latency with 'redis-cli --intrinsic-latency 100'.\n"
                + "  5) Check whether garbage collection pauses line up with the spikes (DOTNET_gcServer, DOTNET_GCgen0size).\n");
        if ((advice & Advice.LocalDisk) != 0)
            sb.Append("- Keep persistence files on a local disk, the AOF above all: network disks are slow to write and to sync.\n");
        if ((advice & Advice.Ssd) != 0)
            sb.Append("- An SSD makes fsync, snapshots and AOF rewrites faster. Under normal load ordinary disks should do; treat this as a last resort.\n");
        if ((advice & Advice.DataWriteback) != 0)
            sb.Append("- ext3/4 mounted with data=writeback can write faster than data=ordered, at the price that after a crash the AOF may end in a half-written command and need repair before the next start.\n");
        if ((advice & Advice.DiskContention) != 0)
            sb.Append("- Other processes are competing for the disk (other servers on the same machine, say): give persistence a quieter disk.\n");
        if ((advice & Advice.NoAppendfsync) != 0)
            sb.Append("- If your data can afford it, 'no-appendfsync-on-rewrite yes' skips fsync while a rewrite or save is writing, when the disk is busiest.\n");
        if ((advice & Advice.RelaxFsync) != 0 && context.FsyncAlways)
            sb.Append("- appendfsync is 'always': every write waits for the disk. 'everysec' is far faster and loses at most a second of writes.\n");
        if ((advice & Advice.WriteLoad) != 0)
            sb.Append("- Renaming the AOF or flushing the last changes of a rewrite takes long under a heavy write load. Fewer, larger commands (or a script doing several writes) help.\n");
        if ((advice & Advice.Hz) != 0 && context.Hz < 100)
            sb.Append("- For active expiry in smaller steps, raise hz to 100 with 'CONFIG SET hz 100'.\n");
        if ((advice & Advice.LargeObjects) != 0)
            sb.Append("- Deleting, expiring or evicting a large key blocks while it is freed. If large keys come and go often, split them into smaller ones.\n");
        if ((advice & Advice.MassEviction) != 0)
            sb.Append("- A sudden drop of maxmemory (CONFIG SET) or a large value created at once (set or sorted set intersections, SORT ... STORE, RESTORE) forces many keys to be evicted at once. \n");
        if ((advice & Advice.DisableThp) != 0)
            sb.Append("- The process uses transparent huge pages, a known source of latency. Turn them off with 'echo never > /sys/kernel/mm/transparent_hugepage/enabled' (and at boot), then restart the server: pages already huge stay so until then.\n");
        return sb.ToString();
    }

    private static Series Copy(Series s)
    {
        var c = new Series { Next = s.Next, Max = s.Max };
        s.Times.CopyTo(c.Times, 0);
        s.Latencies.CopyTo(c.Latencies, 0);
        return c;
    }

    /// <summary>Samples, their average and mean absolute deviation (integer ms), and seconds since the oldest (at least 1).</summary>
    private static (int Samples, long Avg, long Mad, long Period) Analyze(Series s, long nowSeconds)
    {
        int samples = 0;
        long sum = 0, oldest = 0;
        for (int j = 0; j < HistoryLength; j++)
        {
            if (s.Times[j] == 0) continue;
            samples++;
            sum += s.Latencies[j];
            if (oldest == 0 || s.Times[j] < oldest) oldest = s.Times[j];
        }
        if (samples == 0) return (0, 0, 0, 0);
        long avg = sum / samples;
        long period = Math.Max(1, nowSeconds - oldest);
        long deviation = 0;
        for (int j = 0; j < HistoryLength; j++)
            if (s.Times[j] != 0) deviation += Math.Abs(avg - s.Latencies[j]);
        return (samples, avg, deviation / samples, period);
    }

    /// <summary>Whether the process has anonymous huge pages (Linux's smaps_rollup AnonHugePages above 0).</summary>
    public static bool HasAnonHugePages()
    {
        try
        {
            foreach (string line in File.ReadLines("/proc/self/smaps_rollup"))
                if (line.StartsWith("AnonHugePages:", StringComparison.Ordinal))
                    return long.TryParse(line.AsSpan(14).Trim().TrimEnd("kB").Trim(), out long kb) && kb > 0;
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return false;
    }
}
