namespace RedisClone.Storage;

/// <summary>Someone who WATCHes keys: told when one of them changes, so its next EXEC fails.</summary>
internal interface IKeyWatcher
{
    void Invalidate();
}
