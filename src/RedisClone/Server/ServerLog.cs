using System.Globalization;
using Serilog;
using Serilog.Events;

namespace RedisClone.Server;

/// <summary>
/// The server's log, in Redis's line format: <c>pid:M 25 Nov 2026 16:32:02.653 # message</c>, where
/// the mark after the time is the level (<c>.</c> debug, <c>-</c> verbose, <c>*</c> notice,
/// <c>#</c> warning). Lines below <c>loglevel</c> (read at each line: CONFIG SET changes it) are
/// dropped; the rest go to standard output, or to <c>logfile</c> when one is configured, through
/// Serilog's console and file sinks. A server embedded in another program (<see cref="RedisCloneServer"/>)
/// writes nothing to standard output: its lines go to its owner's callback, or nowhere.
/// </summary>
internal sealed class ServerLog : IDisposable
{
    /// <summary>Redis's levels, in its order (LL_DEBUG..LL_WARNING).</summary>
    public enum Level { Debug, Verbose, Notice, Warning }

    private const string Template = "{Pid}:{Role} {Timestamp:dd MMM yyyy HH:mm:ss.fff} {Mark} {Message:l}{NewLine}";

    private readonly Config.ConfigRegistry _config;
    private readonly Lazy<Serilog.Core.Logger> _logger;
    private readonly Action<string>? _lines;
    private readonly bool _console;

    /// <param name="config">Where loglevel and logfile are read.</param>
    /// <param name="lines">Receives each line (without its line break) when no logfile is configured, instead of standard output.</param>
    /// <param name="console">False: with neither a logfile nor <paramref name="lines"/>, lines are dropped (an embedded server).</param>
    public ServerLog(Config.ConfigRegistry config, Action<string>? lines = null, bool console = true)
    {
        _config = config;
        _lines = lines;
        _console = console;
        // Read now: the first line may be written when no descriptor is left to open /etc/localtime
        // (the accept loop logs running out of them), and a failed read would leave the log in UTC.
        _ = TimeZoneInfo.Local;
        // Made at the first line: logfile is set from the command line after this constructor and
        // cannot change later (it is immutable, as in Redis).
        _logger = new Lazy<Serilog.Core.Logger>(Create);
        _raw = new Lazy<Serilog.Core.Logger>(CreateRaw);
    }

    private readonly Lazy<Serilog.Core.Logger> _raw;

    /// <summary>Whether the server is a replica now: Redis marks its lines S then, M as a master.</summary>
    public Func<bool>? IsReplica { get; set; }

    public void Warning(string message) => Write(Level.Warning, message);

    public void Notice(string message) => Write(Level.Notice, message);

    public void Write(Level level, string message)
    {
        if (!Enabled(level)) return;
        // Redis's debug < verbose < notice < warning onto Serilog's Verbose < Debug < Information < Warning.
        var serilogLevel = level switch
        {
            Level.Debug => LogEventLevel.Verbose,
            Level.Verbose => LogEventLevel.Debug,
            Level.Notice => LogEventLevel.Information,
            _ => LogEventLevel.Warning,
        };
        _logger.Value.ForContext("Mark", ".-*#"[(int)level]).ForContext("Role", IsReplica?.Invoke() == true ? 'S' : 'M')
            .Write(serilogLevel, "{Text:l}", message);
    }

    /// <summary>
    /// Text as it is, without the time and level of a line (Redis's LL_RAW: the start-up picture).
    /// A line callback gets it line by line.
    /// </summary>
    public void WriteRaw(Level level, string text)
    {
        if (!Enabled(level)) return;
        if (_config.LogFile.Length == 0 && _lines != null)
        {
            foreach (string line in text.Split('\n')) _lines(line);
            return;
        }
        _raw.Value.Information("{Text:l}", text);
    }

    /// <summary>Whether a line of <paramref name="level"/> is written anywhere (loglevel, and a destination).</summary>
    private bool Enabled(Level level)
    {
        int threshold = _config.LogLevel switch
        {
            "debug" => (int)Level.Debug,
            "verbose" => (int)Level.Verbose,
            "notice" => (int)Level.Notice,
            "warning" => (int)Level.Warning,
            _ => int.MaxValue, // "nothing"
        };
        if ((int)level < threshold) return false;
        return _console || _lines != null || _config.LogFile.Length > 0;
    }

    private Serilog.Core.Logger Create() => Create(Template);

    /// <summary>The logger of <see cref="WriteRaw"/>: the same destination, the text alone.</summary>
    private Serilog.Core.Logger CreateRaw() => Create("{Message:l}");

    private Serilog.Core.Logger Create(string template)
    {
        var configuration = new LoggerConfiguration()
            .MinimumLevel.Verbose()
            .Enrich.WithProperty("Pid", Environment.ProcessId);
        string file = _config.LogFile;
        // Invariant culture: English month names, as Redis prints them, without culture data.
        if (file.Length > 0)
            configuration = configuration.WriteTo.File(file, outputTemplate: template, formatProvider: CultureInfo.InvariantCulture, shared: true);
        else if (_lines != null)
            configuration = configuration.WriteTo.Sink(new LineSink(_lines));
        else
            configuration = configuration.WriteTo.Console(outputTemplate: template, formatProvider: CultureInfo.InvariantCulture,
                theme: Serilog.Sinks.SystemConsole.Themes.ConsoleTheme.None);
        return configuration.CreateLogger();
    }

    /// <summary>Formats each event as the other sinks do and hands the line, without its line break, to a callback.</summary>
    private sealed class LineSink(Action<string> lines) : Serilog.Core.ILogEventSink
    {
        private readonly Serilog.Formatting.Display.MessageTemplateTextFormatter _format = new(Template, CultureInfo.InvariantCulture);

        public void Emit(LogEvent logEvent)
        {
            var text = new StringWriter(CultureInfo.InvariantCulture);
            _format.Format(logEvent, text);
            lines(text.ToString().TrimEnd('\r', '\n'));
        }
    }

    /// <summary>Flushes and closes the sinks (the log file) when the server stops.</summary>
    public void Dispose()
    {
        if (_logger.IsValueCreated) _logger.Value.Dispose();
        if (_raw.IsValueCreated) _raw.Value.Dispose();
    }
}
