namespace RedisClone;

/// <summary>
/// How <see cref="RedisCloneServer.StartAsync(RedisCloneOptions)"/> starts a server. Everything is
/// optional: without any of it the server listens on a free loopback port, keeps its data in memory
/// only and writes no log.
/// </summary>
/// <remarks>
/// The settings are redis-server's, read in its order: <see cref="ConfigFile"/> first, then
/// <see cref="Port"/> and <see cref="DataDirectory"/>, then <see cref="Arguments"/>, so a later
/// setting wins. Whatever none of them sets gets a default chosen for a server living inside another
/// program (a test process that may start several): port 0 (the operating system picks a free one),
/// bind 127.0.0.1, no save points, a temporary working directory of its own that is deleted when
/// the server is disposed, at most 4 shards and one event-loop thread.
/// </remarks>
public sealed class RedisCloneOptions
{
    /// <summary>
    /// The TCP port. Null (the default) or 0: a free port the operating system chooses when the
    /// server binds, so two servers never race for one; read it back from
    /// <see cref="RedisCloneServer.Port"/>.
    /// </summary>
    public int? Port { get; set; }

    /// <summary>A redis.conf-style file read before everything else, as redis-server's first argument; null for none.</summary>
    public string? ConfigFile { get; set; }

    /// <summary>
    /// A directory for persistence (the <c>dir</c> parameter): setting it asks for persistence, so the
    /// server loads <c>dump.rdb</c> from there when it exists and keeps Redis's default save points.
    /// Created when missing. Null (the default): a temporary directory, deleted on disposal, and no
    /// save points.
    /// </summary>
    public string? DataDirectory { get; set; }

    /// <summary>
    /// More settings in redis-server's command-line form, each option name followed by its values:
    /// <c>["--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru"]</c>. Any parameter
    /// <c>CONFIG SET</c> knows is accepted, and <c>--shards N</c>.
    /// </summary>
    public IList<string> Arguments { get; set; } = new List<string>();

    /// <summary>
    /// Receives each log line (in Redis's format, without a line break) when no <c>logfile</c> is
    /// configured. Null (the default): the log is dropped. It is called from the server's threads,
    /// so it must be thread-safe and quick; <c>--loglevel</c> chooses how much it gets.
    /// </summary>
    public Action<string>? Log { get; set; }
}
