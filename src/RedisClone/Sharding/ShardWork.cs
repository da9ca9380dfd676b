namespace RedisClone.Sharding;

/// <summary>
/// Work posted to a shard's inbox. Runs on the shard thread with the shard's gate held and must not
/// block. Connections reuse their work items, so posting allocates nothing.
/// </summary>
internal abstract class ShardWork
{
    public abstract void Execute(Shard shard);
}
