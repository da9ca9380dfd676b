using System.Globalization;
using Serilog;
using Serilog.Events;

namespace RedisClone.Server;

/// <summary>
/// The server's log, in Redis's line format: <c>pid:M 25 Nov 2026 16:32:02.653 # message</c>, where
/// the mark after the time is the level (<c>.</c> debug, <c>-</c> verbose, <c>*</c> notice,
/// <c>#</c> warning). Lines below <c>loglevel</c> (read at each line: CONFIG SET changes it) are
/// dropped; the rest go to standard output, or to <c>logfile</c> when one is configured, through
/// Serilog's console and file sinks.
/// </summary>
internal sealed class ServerLog : IDisposable
{
    /// <summary>Redis's levels, in its order (LL_DEBUG..LL_WARNING).</summary>
    public enum Level { Debug, Verbose, Notice, Warning }

    private const string Template = "{Pid}:M {Timestamp:dd MMM yyyy HH:mm:ss.fff} {Mark} {Message:l}{NewLine}";

    private readonly Config.ConfigRegistry _config;
    private readonly Lazy<Serilog.Core.Logger> _logger;

    public ServerLog(Config.ConfigRegistry config)
    {
        _config = config;
        // Read now: the first line may be written when no descriptor is left to open /etc/localtime
        // (the accept loop logs running out of them), and a failed read would leave the log in UTC.
        _ = TimeZoneInfo.Local;
        // Made at the first line: logfile is set from the command line after this constructor and
        // cannot change later (it is immutable, as in Redis).
        _logger = new Lazy<Serilog.Core.Logger>(Create);
    }

    public void Warning(string message) => Write(Level.Warning, message);

    public void Notice(string message) => Write(Level.Notice, message);

    public void Write(Level level, string message)
    {
        int threshold = _config.LogLevel switch
        {
            "debug" => (int)Level.Debug,
            "verbose" => (int)Level.Verbose,
            "notice" => (int)Level.Notice,
            "warning" => (int)Level.Warning,
            _ => int.MaxValue, // "nothing"
        };
        if ((int)level < threshold) return;
        // Redis's debug < verbose < notice < warning onto Serilog's Verbose < Debug < Information < Warning.
        var serilogLevel = level switch
        {
            Level.Debug => LogEventLevel.Verbose,
            Level.Verbose => LogEventLevel.Debug,
            Level.Notice => LogEventLevel.Information,
            _ => LogEventLevel.Warning,
        };
        _logger.Value.ForContext("Mark", ".-*#"[(int)level]).Write(serilogLevel, "{Text:l}", message);
    }

    private Serilog.Core.Logger Create()
    {
        var configuration = new LoggerConfiguration()
            .MinimumLevel.Verbose()
            .Enrich.WithProperty("Pid", Environment.ProcessId);
        string file = _config.LogFile;
        // Invariant culture: English month names, as Redis prints them, without culture data.
        configuration = file.Length == 0
            ? configuration.WriteTo.Console(outputTemplate: Template, formatProvider: CultureInfo.InvariantCulture,
                theme: Serilog.Sinks.SystemConsole.Themes.ConsoleTheme.None)
            : configuration.WriteTo.File(file, outputTemplate: Template, formatProvider: CultureInfo.InvariantCulture, shared: true);
        return configuration.CreateLogger();
    }

    /// <summary>Flushes and closes the sinks (the log file) when the server stops.</summary>
    public void Dispose()
    {
        if (_logger.IsValueCreated) _logger.Value.Dispose();
    }
}
