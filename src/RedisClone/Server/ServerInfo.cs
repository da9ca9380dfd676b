namespace RedisClone.Server;

/// <summary>What the server says it is (INFO server, HELLO).</summary>
internal static class ServerInfo
{
    /// <summary>
    /// The Redis version we report (INFO, HELLO, <c>-v</c>, LOLWUT, Lua's REDIS_VERSION, the RDB's
    /// redis-ver): 8.2, whose command surface we follow, so clients that choose commands by the
    /// version (hash-field expiry from 7.4, HGETEX/HSETEX/HGETDEL from 8.0, XDELEX/XACKDEL from 8.2)
    /// use the ones that are here. Commands Redis 7.2 already had answer as 7.2 does; what of 7.4 to
    /// 8.2 is missing is in docs/commands.md ("Which Redis version").
    /// </summary>
    public const string Version = "8.2.0";
    public const string Mode = "standalone";

    // 16 hex digits that change with every build, as Redis's redis_build_id: from the module's
    // build GUID (no hash: hashing would load the crypto library, megabytes of RSS, for one string).
    public static readonly string BuildId =
        Convert.ToHexStringLower(typeof(ServerInfo).Assembly.ManifestModule.ModuleVersionId.ToByteArray(), 0, 8);

    /// <summary>
    /// <c>-v</c>: redis-server's one line in its exact form, "Redis server v=..." included (tools and
    /// scripts match the whole line, not only <c>v=</c>); the allocator is the GC's, as INFO's mem_allocator.
    /// </summary>
    public static string VersionLine =>
        $"Redis server v={Version} sha=00000000:0 malloc=dotnet-gc bits={IntPtr.Size * 8} build={BuildId}";

    /// <summary><c>--help</c>: how to start the server (our wording; the forms are redis-server's).</summary>
    public const string Usage = """
        Usage: RedisClone [/path/to/redis.conf] [options] [-]
               RedisClone -                 reads the configuration from standard input
               RedisClone -v or --version   prints the version and exits
               RedisClone -h or --help      prints this text
               RedisClone --ping [host] [port]
                                            asks a running server for PONG (default 127.0.0.1 6379,
                                            password from REDISCLI_AUTH): exit 0 if it answers, else 1

        The configuration file uses redis.conf's syntax (one directive per line, `include` for more
        files). Each option is a directive written as --name value; standard input ('-', first or
        last) comes after the file and the options come last, so a later setting wins.
        Options of this server besides Redis's: --shards N (how many shards own the keys).

        Examples:
               RedisClone                              (defaults: port 6379, 127.0.0.1)
               echo 'maxmemory 128mb' | RedisClone -
               RedisClone /etc/redis/6379.conf
               RedisClone --port 7777 --save ""
               RedisClone /etc/myredis.conf --loglevel verbose -
        """;
}
