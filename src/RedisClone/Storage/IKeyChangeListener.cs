namespace RedisClone.Storage;

/// <summary>
/// Told of every key a database signals as modified (client-side caching's invalidations), on the
/// thread that holds the key's shard gate. <see cref="Active"/> is read first on every signal, so a
/// listener nobody needs costs one read.
/// </summary>
internal interface IKeyChangeListener
{
    bool Active { get; }

    void KeyChanged(ReadOnlySpan<byte> key);
}
