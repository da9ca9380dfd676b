using System.Text;
using RedisClone.Protocol;

namespace RedisClone.PubSub;

/// <summary>
/// The clients in MONITOR mode, and the lines they receive: every command the server runs, as
/// Redis's replicationFeedMonitors formats it —
/// <c>+1700000000.123456 [0 127.0.0.1:50000] "set" "key" "value"</c> — a status reply in both
/// protocols, arguments quoted and escaped as sdscatrepr does.
/// </summary>
/// <remarks>
/// The executor feeds a command after it ran (so a command refused by the checks is never shown),
/// once: a blocking command when it first runs, not again when a wake-up runs it a second time;
/// inside EXEC each queued command as it runs, then EXEC itself. Admin commands and those marked
/// skip-monitor are not shown, as in Redis. <see cref="Active"/> is read on every command, so the
/// cost with no monitor is one volatile read. Lines reach a monitor through its connection's push
/// queue, so a monitor that does not read is disconnected at the pubsub output limits; Redis puts
/// monitors in the normal class, unlimited by default, and lets their replies grow.
/// </remarks>
internal sealed class MonitorFeed
{
    private readonly object _lock = new();
    private ISubscriber[] _monitors = [];
    private volatile bool _active;

    /// <summary>True while at least one client monitors.</summary>
    public bool Active => _active;

    public void Add(ISubscriber monitor)
    {
        lock (_lock)
        {
            _monitors = [.. _monitors, monitor];
            _active = true;
        }
    }

    public void Remove(ISubscriber monitor)
    {
        lock (_lock)
        {
            int at = Array.IndexOf(_monitors, monitor);
            if (at < 0) return;
            var rest = new List<ISubscriber>(_monitors);
            rest.RemoveAt(at);
            _monitors = rest.ToArray();
            _active = _monitors.Length > 0;
        }
    }

    /// <summary>
    /// Sends one command to every monitor. <paramref name="origin"/> is the client's address
    /// ("127.0.0.1:50000"), or "lua" for a script's calls; <paramref name="redactFrom"/> is the first
    /// argument shown as "(redacted)" (AUTH's password), or -1.
    /// </summary>
    public void Feed(int db, string origin, CommandBuffer buffer, int command, int redactFrom = -1, int redactTo = -1)
    {
        var monitors = Volatile.Read(ref _monitors);
        if (monitors.Length == 0) return;
        var line = Format(DateTimeOffset.UtcNow, db, origin, buffer, command, redactFrom, redactTo);
        foreach (var m in monitors) m.Push(line);
    }

    /// <summary>The whole line, "+...\r\n".</summary>
    internal static byte[] Format(DateTimeOffset at, int db, string origin, CommandBuffer buffer, int command,
        int redactFrom = -1, int redactTo = -1)
    {
        long micros = (at.UtcTicks - DateTime.UnixEpoch.Ticks) / 10;
        var sb = new StringBuilder(64);
        sb.Append('+').Append(micros / 1_000_000).Append('.').Append((micros % 1_000_000).ToString("D6"))
          .Append(" [").Append(db).Append(' ').Append(origin).Append("] ");
        int argc = buffer.ArgCount(command);
        for (int a = 0; a < argc; a++)
        {
            if (a > 0) sb.Append(' ');
            if (a >= redactFrom && a <= redactTo && redactFrom >= 0) sb.Append("\"(redacted)\"");
            else AppendRepr(sb, buffer.Arg(command, a));
        }
        sb.Append("\r\n");
        return Encoding.Latin1.GetBytes(sb.ToString());
    }

    /// <summary>An argument in double quotes, escaped as Redis's sdscatrepr does.</summary>
    internal static void AppendRepr(StringBuilder sb, ReadOnlySpan<byte> value)
    {
        sb.Append('"');
        foreach (byte b in value)
        {
            switch (b)
            {
                case (byte)'\\': sb.Append("\\\\"); break;
                case (byte)'"': sb.Append("\\\""); break;
                case (byte)'\n': sb.Append("\\n"); break;
                case (byte)'\r': sb.Append("\\r"); break;
                case (byte)'\t': sb.Append("\\t"); break;
                case 7: sb.Append("\\a"); break;
                case 8: sb.Append("\\b"); break;
                default:
                    if (b >= 0x20 && b < 0x7f) sb.Append((char)b);
                    else sb.Append("\\x").Append(b.ToString("x2"));
                    break;
            }
        }
        sb.Append('"');
    }
}
