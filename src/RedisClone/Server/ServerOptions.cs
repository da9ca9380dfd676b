using RedisClone.Protocol;
using RedisClone.Server.Config;

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

    /// <summary>
    /// transport: what serves the plain port's client sockets (our own directive). <c>epoll</c>, the
    /// default on Linux and only there: the <see cref="IoThreads"/> event loops of Network/Epoll;
    /// <c>sockets</c>: Pipelines.Sockets.Unofficial over .NET's asynchronous sockets (the default
    /// elsewhere). The TLS port always uses the latter.
    /// </summary>
    public TransportKind Transport { get; set; } = Network.Epoll.EventLoop.IsSupported ? TransportKind.Epoll : TransportKind.Sockets;

    /// <summary>The configuration file's absolute path (the first argument), or null.</summary>
    public string? ConfigFile { get; set; }

    /// <summary>Settings from the configuration file, standard input and the command line that CONFIG also knows, in order.</summary>
    public List<ConfigDirective> Settings { get; } = new();

    /// <summary>metrics-port: the Prometheus endpoint's port (0: no endpoint, the default). Our own directive.</summary>
    public int MetricsPort { get; set; }

    /// <summary>metrics-bind: the address the metrics endpoint listens on (loopback unless asked). Our own directive.</summary>
    public string MetricsBind { get; set; } = "127.0.0.1";

    /// <summary>The name of every directive given (configuration file, standard input, options), lower-cased.</summary>
    public HashSet<string> Given { get; } = new(StringComparer.Ordinal);

    /// <summary>False for a server embedded in another program: no log on standard output (see <see cref="ServerLog"/>).</summary>
    public bool LogToConsole { get; set; } = true;

    /// <summary>Receives each log line when no logfile is configured (an embedded server's owner), or null.</summary>
    public Action<string>? LogLines { get; set; }

    /// <summary><c>user</c> directives, for the ACL users.</summary>
    public List<ConfigDirective> Users { get; } = new();

    /// <summary>Values of the <c>transport</c> directive.</summary>
    public enum TransportKind { Epoll, Sockets }

    /// <summary>This server's own start-up directives (not Redis parameters; CONFIG REWRITE keeps their lines).</summary>
    public static readonly string[] OwnDirectives = ["shards", "metrics-port", "metrics-bind", "transport"];

    /// <summary>Directives Redis 7.2 still accepts and ignores.</summary>
    private static readonly string[] Deprecated = ["list-max-ziplist-entries", "list-max-ziplist-value", "lua-replicate-commands"];

    /// <summary>
    /// Reads the configuration as redis-server does: the file named by the first argument (when it
    /// does not start with <c>-</c>), then standard input when <c>-</c> is the first or last argument,
    /// then the <c>--name value</c> options, each turned into a line of the same syntax; later lines
    /// override earlier ones. Throws <see cref="ConfigFileException"/> for the first directive that
    /// cannot be used, with its line.
    /// </summary>
    public static ServerOptions Parse(string[] args, TextReader? stdin = null)
    {
        var o = new ServerOptions();
        int j = 0;
        if (args.Length > 0 && args[0].Length > 0 && args[0][0] != '-')
        {
            o.ConfigFile = Path.GetFullPath(args[0]);
            j = 1;
        }
        bool fromStdin = false;
        var options = new System.Text.StringBuilder();
        // As redis-server: "--name" starts a new line only once the previous option has a value, so
        // "--bind --x" gives bind the value "--x"; a bare "--save" means save "".
        bool valueSeen = true;
        for (; j < args.Length; j++)
        {
            string a = args[j];
            if (a == "-" && (j == 0 || j == args.Length - 1))
            {
                fromStdin = true;
            }
            else if (valueSeen && a.StartsWith("--", StringComparison.Ordinal))
            {
                if (options.Length > 0) options.Append('\n');
                options.Append(a, 2, a.Length - 2).Append(' ');
                if (InlineSplitter.Split(a) is { Count: 1 })
                {
                    valueSeen = false;
                    bool last = j == args.Length - 1;
                    if (a.Equals("--save", StringComparison.OrdinalIgnoreCase) &&
                        (last || args[j + 1].StartsWith("--", StringComparison.Ordinal)))
                    {
                        options.Append("\"\"");
                        valueSeen = !last;
                    }
                }
                else
                {
                    valueSeen = true;
                }
            }
            else
            {
                options.Append(Config.ConfigFile.Repr(a)).Append(' ');
                valueSeen = true;
            }
        }

        var text = new System.Text.StringBuilder();
        if (o.ConfigFile != null) text.Append(Config.ConfigFile.ReadFile(o.ConfigFile));
        if (fromStdin) text.Append((stdin ?? Console.In).ReadToEnd());
        text.Append('\n').Append(options);
        var directives = new List<ConfigDirective>();
        Config.ConfigFile.Parse(text.ToString(), directives);

        // Every value is checked here, in order, on a registry of its own, so that the first bad
        // line stops the start with its line number; the server applies the same lines again.
        var check = new ConfigRegistry(null);
        var lastSetting = new Dictionary<string, ConfigDirective>(StringComparer.Ordinal);
        foreach (var d in directives)
        {
            o.Given.Add(d.Name);
            string? error = o.Apply(d, check);
            if (error != null) throw new ConfigFileException(error, d.Line, d.Text);
            if (ConfigRegistry.CanonicalName(d.Name) is { } name) lastSetting[name] = d;
        }
        // A feature this server lacks is refused by its final value, reported at the line that set it.
        foreach (var (name, d) in lastSetting)
        {
            if (check.RefusedFinalValue(name) is { } error) throw new ConfigFileException(error, d.Line, d.Text);
        }
        // Redis's sanity check after the whole file: reported without a line, as redis-server does.
        if (check.Value("cluster-enabled") == "yes" && check.Value("replicaof").Length > 0)
            throw new ConfigFileException("replicaof directive not allowed in cluster mode");
        string logFile = check.LogFile;
        if (logFile.Length > 0)
        {
            try
            {
                using var _ = new FileStream(logFile, FileMode.Append, FileAccess.Write, FileShare.ReadWrite);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                throw new ConfigFileException("Can't open the log file: " + Common.SystemErrors.Describe(ex));
            }
        }
        return o;
    }

    /// <summary>One of our own numeric directives, in Redis's words for a bad one; stored by <paramref name="store"/>.</summary>
    private static string? OwnNumber(ReadOnlySpan<string> values, int min, int max, Action<int> store)
    {
        if (values.Length != 1) return "wrong number of arguments";
        if (!int.TryParse(values[0], System.Globalization.NumberStyles.AllowLeadingSign,
                System.Globalization.CultureInfo.InvariantCulture, out int n) || n < min || n > max)
            return $"argument must be between {min} and {max} inclusive";
        store(n);
        return null;
    }

    /// <summary>One directive: checked on <paramref name="check"/> and kept; the error text if it cannot be used.</summary>
    private string? Apply(ConfigDirective d, ConfigRegistry check)
    {
        string name = d.Name;
        var values = d.Args.AsSpan(1);
        switch (name)
        {
            case "shards":
                // Our own: how many shards own the keyspace (not a Redis parameter, not in CONFIG).
                return OwnNumber(values, 1, 64, n => Shards = n);
            case "metrics-port":
                return OwnNumber(values, 0, 65535, n => MetricsPort = n);
            case "metrics-bind":
                if (values.Length != 1) return "wrong number of arguments";
                if (!System.Net.IPAddress.TryParse(values[0], out _) && values[0] != "localhost")
                    return "argument must be an IP address";
                MetricsBind = values[0];
                return null;
            case "transport":
                if (values.Length != 1) return "wrong number of arguments";
                switch (values[0].ToLowerInvariant())
                {
                    case "sockets":
                        Transport = TransportKind.Sockets;
                        return null;
                    case "epoll" when Network.Epoll.EventLoop.IsSupported:
                        Transport = TransportKind.Epoll;
                        return null;
                    case "epoll":
                        return "the epoll transport needs Linux; use 'transport sockets' here";
                    default:
                        return "argument must be 'epoll' or 'sockets'";
                }
            case "user" when values.Length >= 1:
                Users.Add(d);
                return null;
            case "rename-command" when values.Length == 2:
                return "rename-command is not supported by this server";
            case "loadmodule" when values.Length >= 1:
                return "Modules are not supported by this server";
            case "sentinel":
                return "Sentinel mode is not supported by this server";
        }
        if (!ConfigRegistry.IsKnown(name))
        {
            if (Array.IndexOf(Deprecated, name) >= 0 && values.Length == 1) return null;
            if (name.Contains('.')) return "Module configs are not supported by this server";
            return "Bad directive or wrong number of arguments";
        }
        string? error = check.SetDirective(name, values.ToArray());
        if (error != null) return error;
        // The parameters this object carries for the server's start (the registry reads them back from here).
        switch (name)
        {
            case "port": Port = (int)check.Number("port"); break;
            case "databases": Databases = (int)check.Number("databases"); break;
            case "io-threads": IoThreads = (int)check.Number("io-threads"); break;
            case "maxclients": MaxClients = check.Number("maxclients"); break;
            case "bind": Bind = check.Value("bind").Split(' ', StringSplitOptions.RemoveEmptyEntries); break;
            default: Settings.Add(d); break;
        }
        return null;
    }
}
