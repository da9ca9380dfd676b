namespace RedisClone.Server.Config;

/// <summary>
/// The configuration parameters CONFIG GET/SET and the command line know, with their current values.
/// </summary>
internal sealed class ConfigRegistry
{
    private static readonly string[] Known = ["proto-max-bulk-len", "save", "appendonly", "databases", "port", "bind", "maxclients"];

    private readonly RedisServer? _server;

    public ConfigRegistry(RedisServer? server) => _server = server;

    public long ProtoMaxBulkLen { get; private set; } = 512L * 1024 * 1024;

    public static bool IsKnown(string name) => Known.Contains(name, StringComparer.OrdinalIgnoreCase);

    /// <summary>Sets a parameter; returns null or an error text.</summary>
    public string? Set(string name, string value) => null;
}
