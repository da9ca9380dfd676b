namespace RedisClone.Cluster;

/// <summary>A client's cluster flags (Redis's CLIENT_ASKING and CLIENT_READONLY).</summary>
[Flags]
internal enum ClientClusterFlags : byte
{
    None = 0,
    /// <summary>ASKING: the next command (or transaction) may use a slot this node is importing.</summary>
    Asking = 1,
    /// <summary>READONLY: a replica serves this client's reads of its master's slots.</summary>
    ReadOnly = 2,
}
