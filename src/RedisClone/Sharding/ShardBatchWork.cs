using RedisClone.Protocol;

namespace RedisClone.Sharding;

/// <summary>Runs a connection's commands on a shard thread for a <see cref="ShardBatchWork"/>.</summary>
internal interface IShardBatchRunner
{
    /// <summary>Runs command <paramref name="command"/> of the current batch, replying into <paramref name="replies"/>.</summary>
    void RunOnShard(int command, ReplyBuffer replies);

    /// <summary>Completed once every shard's part of the segment is done.</summary>
    SegmentSignal Signal { get; }
}

/// <summary>
/// One connection's commands for one shard within a segment. Reused for every segment; the shard
/// writes the replies into <see cref="Replies"/> and records each command's range.
/// </summary>
internal sealed class ShardBatchWork : ShardWork
{
    private readonly IShardBatchRunner _connection;
    private int[] _commands = new int[16];
    private int _count;

    public ShardBatchWork(IShardBatchRunner connection) => _connection = connection;

    public ReplyBuffer Replies { get; } = new();

    public void Begin()
    {
        _count = 0;
        Replies.Clear();
    }

    public void Add(int command)
    {
        if (_count == _commands.Length) Array.Resize(ref _commands, _count * 2);
        _commands[_count++] = command;
    }

    public override void Execute(Shard shard)
    {
        try
        {
            for (int i = 0; i < _count; i++) _connection.RunOnShard(_commands[i], Replies);
        }
        finally
        {
            _connection.Signal.PartDone();
        }
    }
}
