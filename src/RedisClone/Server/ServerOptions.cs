namespace RedisClone.Server;

/// <summary>
/// Start-up options in redis-server's style: <c>--port 6380 --bind 127.0.0.1 --databases 16
/// --shards 4</c>. Unknown options are an error, as they are for redis-server.
/// </summary>
internal sealed class ServerOptions
{
    public int Port { get; set; } = 6379;
    public string[] Bind { get; set; } = ["127.0.0.1"];
    public int Databases { get; set; } = 16;
    public int Shards { get; set; } = Math.Clamp(Environment.ProcessorCount, 1, 64);
    public long MaxClients { get; set; } = 10000;

    /// <summary>
    /// Event loop threads serving client sockets (Redis's io-threads). Commands run on these threads
    /// when their shards' gates are free, so with few cores one loop leaves the others to the shards
    /// and the load generator; larger machines get one loop per two cores.
    /// </summary>
    public int IoThreads { get; set; } = Math.Clamp(Environment.ProcessorCount / 2, 1, 64);

    /// <summary>Serve sockets with .NET's asynchronous socket engine even where the epoll loops run (tests of that path).</summary>
    internal bool DotNetSockets { get; set; }
    public string? ConfigFile { get; set; }

    /// <summary>--metrics-port: the Prometheus endpoint's port (0: no endpoint, the default).</summary>
    public int MetricsPort { get; set; }

    /// <summary>--metrics-bind: the address the metrics endpoint listens on (loopback unless asked).</summary>
    public string MetricsBind { get; set; } = "127.0.0.1";

    /// <summary>Settings given on the command line that CONFIG also knows (name → value).</summary>
    public List<(string Name, string Value)> Settings { get; } = new();

    /// <summary>Parses the command line; throws <see cref="ArgumentException"/> with a user-facing message.</summary>
    public static ServerOptions Parse(string[] args)
    {
        var o = new ServerOptions();
        int i = 0;
        if (args.Length > 0 && !args[0].StartsWith("--", StringComparison.Ordinal))
        {
            o.ConfigFile = args[0];
            i = 1;
        }
        for (; i < args.Length; i++)
        {
            string a = args[i];
            if (!a.StartsWith("--", StringComparison.Ordinal) || a.Length == 2)
                throw new ArgumentException($"unexpected argument '{a}'");
            string name = a.Substring(2).ToLowerInvariant();
            var values = new List<string>();
            while (i + 1 < args.Length && !args[i + 1].StartsWith("--", StringComparison.Ordinal)) values.Add(args[++i]);
            string Single()
            {
                if (values.Count != 1) throw new ArgumentException($"option '--{name}' takes exactly one value");
                return values[0];
            }
            switch (name)
            {
                case "port": o.Port = ParseInt(name, Single(), 0, 65535); break;
                case "bind":
                    if (values.Count == 0) throw new ArgumentException("option '--bind' needs at least one address");
                    o.Bind = values.ToArray();
                    break;
                case "databases": o.Databases = ParseInt(name, Single(), 1, 1 << 20); break;
                case "shards": o.Shards = ParseInt(name, Single(), 1, 64); break;
                case "io-threads": o.IoThreads = ParseInt(name, Single(), 1, 128); break;
                case "maxclients": o.MaxClients = ParseInt(name, Single(), 1, int.MaxValue); break;
                case "metrics-port": o.MetricsPort = ParseInt(name, Single(), 0, 65535); break;
                case "metrics-bind":
                    o.MetricsBind = Single();
                    if (!System.Net.IPAddress.TryParse(o.MetricsBind, out _) && o.MetricsBind != "localhost")
                        throw new ArgumentException($"option '--metrics-bind' must be an IP address, got '{o.MetricsBind}'");
                    break;
                default:
                    if (!Config.ConfigRegistry.IsKnown(name))
                        throw new ArgumentException($"unknown option '--{name}'");
                    o.Settings.Add((name, string.Join(' ', values)));
                    break;
            }
        }
        return o;
    }

    private static int ParseInt(string name, string value, int min, int max)
    {
        if (!int.TryParse(value, out int v) || v < min || v > max)
            throw new ArgumentException($"option '--{name}' must be an integer from {min} to {max}, got '{value}'");
        return v;
    }
}
