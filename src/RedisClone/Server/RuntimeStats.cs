using System.Runtime.CompilerServices;

namespace RedisClone.Server;

/// <summary>
/// Figures INFO reports that are not plain counters: the instantaneous rates (ops/sec, network
/// kbps), sampled every 100 ms over the last 16 samples as Redis's serverCron does, and the
/// memory peak. One per server, created by the first INFO (or CONFIG RESETSTAT),
/// so a server nobody asks about runs no timer; it stops with the server.
/// </summary>
internal sealed class RuntimeStats
{
    private const int IntervalMs = 100;
    private const int SampleCount = 16; // Redis's STATS_METRIC_SAMPLES

    private static readonly ConditionalWeakTable<RedisServer, RuntimeStats> PerServer = new();

    private readonly RedisServer _server;
    private readonly Timer _timer;
    private readonly Metric _commands = new(), _netInput = new(), _netOutput = new(),
        _netReplInput = new(), _netReplOutput = new(), _cycles = new();
    private readonly RatioMetric _cycleDuration = new();
    private long _baseCycles, _baseTicks;
    private long _peakMemory;

    private RuntimeStats(RedisServer server)
    {
        _server = server;
        Sample();
        _timer = new Timer(_ => Tick(), null, IntervalMs, IntervalMs);
    }

    public static RuntimeStats For(RedisServer server) => PerServer.GetValue(server, s => new RuntimeStats(s));

    public long OpsPerSecond => _commands.Average;
    public double InputKbps => _netInput.Average / 1024.0;
    public double OutputKbps => _netOutput.Average / 1024.0;
    public double ReplInputKbps => _netReplInput.Average / 1024.0;
    public double ReplOutputKbps => _netReplOutput.Average / 1024.0;

    /// <summary>instantaneous_eventloop_cycles_per_sec: event loop iterations per second, all loops together.</summary>
    public long CyclesPerSecond => _cycles.Average;

    /// <summary>instantaneous_eventloop_duration_usec: the mean time awake of an iteration over the recent samples.</summary>
    public long CycleDurationMicros => _cycleDuration.Average;

    /// <summary>Event loop iterations and their time awake (µs) since the start or CONFIG RESETSTAT; zeros without epoll loops.</summary>
    public (long Cycles, long Micros) EventLoopTotals()
    {
        var (cycles, ticks) = _server.EventLoops?.Totals() ?? (0, 0);
        return (Math.Max(0, cycles - Volatile.Read(ref _baseCycles)),
            Math.Max(0, (ticks - Volatile.Read(ref _baseTicks)) * 1_000_000 / System.Diagnostics.Stopwatch.Frequency));
    }

    /// <summary>The largest used_memory seen so far, <paramref name="current"/> included.</summary>
    public long PeakMemory(long current)
    {
        long peak = Volatile.Read(ref _peakMemory);
        while (current > peak)
        {
            long seen = Interlocked.CompareExchange(ref _peakMemory, current, peak);
            if (seen == peak) return current;
            peak = seen;
        }
        return peak;
    }

    /// <summary>CONFIG RESETSTAT: rates start over, and so does the memory peak.</summary>
    public void Reset()
    {
        lock (_commands)
        {
            _commands.Reset();
            _netInput.Reset();
            _netOutput.Reset();
            _netReplInput.Reset();
            _netReplOutput.Reset();
            _cycles.Reset();
            _cycleDuration.Reset();
            var (cycles, ticks) = _server.EventLoops?.Totals() ?? (0, 0);
            _server.EventLoops?.ResetMaxima();
            Volatile.Write(ref _baseCycles, cycles);
            Volatile.Write(ref _baseTicks, ticks);
        }
        Volatile.Write(ref _peakMemory, 0);
    }

    private void Tick()
    {
        if (_server.StoppingToken.IsCancellationRequested)
        {
            _timer.Dispose();
            return;
        }
        Sample();
    }

    private void Sample()
    {
        long now = Environment.TickCount64;
        var stats = _server.Stats;
        lock (_commands)
        {
            _commands.Add(now, _server.CommandStats.TotalCalls());
            _netInput.Add(now, stats.NetInputBytes.Value);
            _netOutput.Add(now, stats.NetOutputBytes.Value);
            _netReplInput.Add(now, stats.NetReplInputBytes.Value);
            _netReplOutput.Add(now, stats.NetReplOutputBytes.Value);
            var (cycles, micros) = EventLoopTotals();
            _cycles.Add(now, cycles);
            _cycleDuration.Add(micros, cycles);
        }
        // The peak follows the data between INFO calls too, as Redis samples it in its cron.
        var (dataset, tables) = InfoBuilder.DataMemory(_server);
        PeakMemory(dataset + tables);
    }

    /// <summary>
    /// The mean of a sum per count over the last <see cref="SampleCount"/> intervals (Redis's
    /// instantaneous_eventloop_duration_usec: time awake per loop iteration).
    /// </summary>
    private sealed class RatioMetric
    {
        private readonly long[] _ratios = new long[SampleCount];
        private int _next, _filled;
        private long _lastSum = -1, _lastCount;

        public void Add(long sum, long count)
        {
            if (_lastSum >= 0)
            {
                long deltaCount = count - _lastCount, deltaSum = sum - _lastSum;
                _ratios[_next] = deltaCount > 0 && deltaSum >= 0 ? deltaSum / deltaCount : 0;
                _next = (_next + 1) % SampleCount;
                _filled = Math.Min(_filled + 1, SampleCount);
            }
            _lastSum = sum;
            _lastCount = count;
        }

        public void Reset()
        {
            Array.Clear(_ratios);
            _next = _filled = 0;
            _lastSum = -1;
        }

        public long Average
        {
            get
            {
                int n = Volatile.Read(ref _filled);
                if (n == 0) return 0;
                long total = 0;
                for (int i = 0; i < n; i++) total += Volatile.Read(ref _ratios[i]);
                return total / n;
            }
        }
    }

    /// <summary>A counter's per-second rate over the last <see cref="SampleCount"/> intervals.</summary>
    private sealed class Metric
    {
        private readonly long[] _rates = new long[SampleCount];
        private int _next, _filled;
        private long _lastTime = -1, _lastValue;

        public void Add(long nowMs, long value)
        {
            if (_lastTime >= 0 && nowMs > _lastTime)
            {
                // A counter reset (CONFIG RESETSTAT) would give a negative delta: count it as zero.
                long delta = Math.Max(0, value - _lastValue);
                _rates[_next] = delta * 1000 / (nowMs - _lastTime);
                _next = (_next + 1) % SampleCount;
                _filled = Math.Min(_filled + 1, SampleCount);
            }
            _lastTime = nowMs;
            _lastValue = value;
        }

        public void Reset()
        {
            Array.Clear(_rates);
            _next = _filled = 0;
        }

        /// <summary>Mean of the samples taken so far (Redis averages all 16 slots, zeros included).</summary>
        public long Average
        {
            get
            {
                int n = Volatile.Read(ref _filled);
                if (n == 0) return 0;
                long sum = 0;
                for (int i = 0; i < n; i++) sum += Volatile.Read(ref _rates[i]);
                return sum / n;
            }
        }
    }
}
