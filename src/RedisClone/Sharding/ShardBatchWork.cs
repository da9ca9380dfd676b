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
/// <remarks>
/// A part stops once its replies pass <see cref="ReplyBudget"/> (after at least one command), so a
/// client that pipelines many large replies without reading holds a bounded amount of them: the
/// executor writes out the replies it can in order, waits for the client to read, and posts the
/// rest (<see cref="HasRemaining"/>) again.
/// </remarks>
internal sealed class ShardBatchWork : ShardWork
{
    /// <summary>Bytes of replies a part may hold before it stops; one reply may go past it.</summary>
    public const int ReplyBudget = 64 * 1024;

    private readonly IShardBatchRunner _connection;
    private int[] _commands = new int[16];
    private int _count;
    private int _next;

    public ShardBatchWork(IShardBatchRunner connection) => _connection = connection;

    public ReplyBuffer Replies { get; } = new();

    /// <summary>True while some of this part's commands have not run.</summary>
    public bool HasRemaining => _next < _count;

    /// <summary>The last command this part ran, or -1: its replies are all written once the executor passed it.</summary>
    public int LastRun => _next == 0 ? -1 : _commands[_next - 1];

    public void Begin()
    {
        _count = 0;
        _next = 0;
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
            while (_next < _count)
            {
                _connection.RunOnShard(_commands[_next++], Replies);
                if (Replies.Written > ReplyBudget) break;
            }
        }
        finally
        {
            _connection.Signal.PartDone();
        }
    }
}
