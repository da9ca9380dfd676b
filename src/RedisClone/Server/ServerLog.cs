using System.Globalization;

namespace RedisClone.Server;

/// <summary>
/// The server's log, in Redis's line format: <c>pid:M 25 Nov 2026 16:32:02.653 # message</c>, where
/// the mark after the time is the level (<c>.</c> debug, <c>-</c> verbose, <c>*</c> notice,
/// <c>#</c> warning). Lines below <c>loglevel</c> are dropped; they go to standard output, or are
/// appended to <c>logfile</c> when one is configured, as Redis does.
/// </summary>
internal sealed class ServerLog
{
    /// <summary>Redis's levels, in its order (LL_DEBUG..LL_WARNING).</summary>
    public enum Level { Debug, Verbose, Notice, Warning }

    private static readonly int Pid = Environment.ProcessId;
    private readonly Config.ConfigRegistry _config;
    private readonly Lock _fileLock = new();

    public ServerLog(Config.ConfigRegistry config)
    {
        _config = config;
        // Read now: the first line may be written when no descriptor is left to open /etc/localtime
        // (the accept loop logs running out of them), and a failed read would leave the log in UTC.
        _ = TimeZoneInfo.Local;
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
        // Invariant culture: English month names without loading culture data.
        string line = string.Create(CultureInfo.InvariantCulture,
            $"{Pid}:M {DateTime.Now:dd MMM yyyy HH:mm:ss.fff} {".-*#"[(int)level]} {message}");
        string file = _config.LogFile;
        if (file.Length == 0)
        {
            Console.Out.WriteLine(line);
            return;
        }
        lock (_fileLock)
        {
            try
            {
                File.AppendAllText(file, line + "\n");
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // Redis drops the line when it cannot open the log file.
            }
        }
    }
}
