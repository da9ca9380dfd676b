namespace RedisClone.Server;

/// <summary>What the server says it is (INFO server, HELLO).</summary>
internal static class ServerInfo
{
    /// <summary>The Redis version we implement and report; clients pick features by it.</summary>
    public const string Version = "7.2.4";
    public const string Mode = "standalone";
}
