namespace RedisClone.Server;

/// <summary>The TLS context could not be made at start-up: the server exits, the reasons are in the log.</summary>
internal sealed class TlsConfigException : Exception;
