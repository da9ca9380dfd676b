using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XREAD BLOCK with two and more clients, against redis-server (<see cref="BlockingDifferential"/>):
/// woken by another client's XADD, "$" meaning "after what was there when it blocked", several
/// waiters, keys on different shards, timeouts, CLIENT UNBLOCK, keys deleted or retyped meanwhile.
/// </summary>
public class StreamReadBlockingTests
{
    [RedisFact]
    public void XRead_BlockedOnDollar_WokenByXAddWithOnlyTheNewEntry() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Call(1, "XADD", "s", "1-1", "a", "1");
        r.Call(1, "XADD", "s", "2-1", "a", "2");
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Call(1, "XADD", "s", "3-1", "b", "3");
        r.Read(0);
        r.Call(0, "PING");
    });

    /// <summary>
    /// "$" is the last ID when the client blocked, not when it runs again: two entries added in one
    /// transaction both come back (a "$" read again on wake-up would find nothing and wait on).
    /// </summary>
    [RedisFact]
    public void XRead_DollarResolvedAtBlockTime_ReturnsEverythingAddedSince() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Call(1, "XADD", "s", "5-0", "a", "1");
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Call(1, "MULTI");
        r.Call(1, "XADD", "s", "6-0", "b", "2");
        r.Call(1, "XADD", "s", "7-0", "c", "3");
        r.Call(1, "EXEC");
        r.Read(0);
        // COUNT applies to what it finds when woken.
        r.Block(0, "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "s", "$");
        r.Call(1, "MULTI");
        r.Call(1, "XADD", "s", "8-0", "d", "4");
        r.Call(1, "XADD", "s", "9-0", "e", "5");
        r.Call(1, "EXEC");
        r.Read(0);
    });

    [RedisFact]
    public void XRead_DollarOnMissingKey_ServedOnceCreated() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Call(1, "XADD", "s", "1-1", "a", "1");
        r.Read(0);
    });

    [RedisFact]
    public void XRead_SeveralWaiters_AllServedBySameXAdd() => BlockingDifferential.AssertSame(4, r =>
    {
        r.Call(3, "XADD", "s", "1-1", "a", "1");
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Block(1, "XREAD", "BLOCK", "0", "STREAMS", "s", "1-1");
        r.Block(2, "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "other", "s", "$", "1-1");
        r.Call(3, "XADD", "s", "2-1", "b", "2");
        r.Read(0);
        r.Read(1);
        r.Read(2);
        r.WaitBlocked(0);
    }, protocol: 2);

    /// <summary>Keys on different shards (4 shards here): the write to one of them wakes the client, which reads only that one.</summary>
    [RedisFact]
    public void XRead_KeysOnDifferentShards_WokenByAnyOfThem() => BlockingDifferential.AssertSame(2, r =>
    {
        var keys = Enumerable.Range(0, 12).Select(i => $"key{i}").ToArray();
        foreach (var k in keys) r.Call(1, "XADD", k, "1-0", "f", k);
        r.Block(0, ["XREAD", "BLOCK", "0", "STREAMS", .. keys, .. keys.Select(_ => "$")]);
        r.Call(1, "XADD", "key7", "2-0", "g", "7");
        r.Read(0);
        r.Block(0, ["XREAD", "BLOCK", "0", "STREAMS", .. keys, .. keys.Select(_ => "$")]);
        r.Call(1, "XADD", "key11", "2-0", "g", "11");
        r.Read(0);
    });

    /// <summary>
    /// Redis 7.2 runs a woken XREAD again, so it reads every stream that has something by then: two
    /// keys written in one transaction both come back (7.0, the reference server, served only the
    /// key that woke it, with a reply of its own making). Checked against 7.2's reply.
    /// </summary>
    [Fact]
    public void XRead_TwoKeysWrittenInOneTransaction_BothReturnedAs72()
    {
        string transcript = BlockingDifferential.RunOurs(2, r =>
        {
            var keys = Enumerable.Range(0, 12).Select(i => $"key{i}").ToArray();
            foreach (var k in keys) r[1].Call("XADD", k, "1-0", "f", k);
            r.Block(0, ["XREAD", "BLOCK", "0", "STREAMS", .. keys, .. keys.Select(_ => "$")]);
            r[1].Call("MULTI");
            r[1].Call("XADD", "key3", "3-0", "g", "3");
            r[1].Call("XADD", "key11", "3-0", "g", "11");
            r[1].Call("EXEC");
            r.Read(0);
        });
        Assert.Contains("*2\\r\\n*2\\r\\n$4\\r\\nkey3\\r\\n*1\\r\\n*2\\r\\n$3\\r\\n3-0\\r\\n*2\\r\\n$1\\r\\ng\\r\\n$1\\r\\n3\\r\\n"
            + "*2\\r\\n$5\\r\\nkey11\\r\\n*1\\r\\n*2\\r\\n$3\\r\\n3-0\\r\\n*2\\r\\n$1\\r\\ng\\r\\n$2\\r\\n11\\r\\n", transcript);
    }

    [RedisFact]
    public void XRead_Resp3_MapReplyAndNullOnTimeout() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "t", "$", "$");
        r.Call(1, "XADD", "t", "1-1", "a", "1");
        r.Read(0);
        r.Call(0, "XREAD", "BLOCK", "50", "STREAMS", "s", "t", "$", "$");
    }, protocol: 3);

    [RedisFact]
    public void XRead_Timeout_RepliesNullArrayAfterTheWait() => BlockingDifferential.AssertSame(1, r =>
    {
        r.Call(0, "XADD", "s", "1-1", "a", "1");
        var started = DateTime.UtcNow;
        r.Call(0, "XREAD", "BLOCK", "150", "STREAMS", "s", "$");
        Assert.True(DateTime.UtcNow - started >= TimeSpan.FromMilliseconds(140), "returned before its timeout");
        r.Call(0, "XREAD", "BLOCK", "1", "STREAMS", "s", "missing", "1-1", "0");
        r.Call(0, "PING");
    });

    [RedisFact]
    public void XRead_ClientUnblock_TimeoutAndError() => BlockingDifferential.AssertSame(2, r =>
    {
        string id = r[0].Call("CLIENT", "ID").Trim(':', '\r', '\n');
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Record(1, "CLIENT UNBLOCK <id>", r[1].Call("CLIENT", "UNBLOCK", id));
        r.Read(0);
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Record(1, "CLIENT UNBLOCK <id> ERROR", r[1].Call("CLIENT", "UNBLOCK", id, "ERROR"));
        r.Read(0);
        r.Record(1, "CLIENT UNBLOCK <id> ERROR", r[1].Call("CLIENT", "UNBLOCK", id, "ERROR"));
        // Nothing of the wait is left: a later XADD finds no one.
        r.Call(1, "XADD", "s", "1-1", "a", "1");
        r.Call(0, "XREAD", "STREAMS", "s", "0");
    });

    /// <summary>As Redis 7.2's "Blocking XREAD: key deleted" and "key type changed": a plain XREAD waits on, for entries past its ID.</summary>
    [RedisFact]
    public void XRead_KeyDeletedOrRetypedWhileBlocked_WaitsForNewEntries() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Call(1, "XADD", "s", "666", "f", "v");
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Call(1, "DEL", "s");
        r.NoReply(0, 50);
        r.Call(1, "XADD", "s", "667", "f", "v");
        r.Read(0);

        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Call(1, "SET", "s", "val1");
        r.NoReply(0, 50);
        r.Call(1, "DEL", "s");
        r.Call(1, "LPUSH", "s", "x");
        r.NoReply(0, 50);
        r.Call(1, "DEL", "s");
        // Older than what it waits for: still nothing; then a newer one.
        r.Call(1, "XADD", "s", "600", "f", "v");
        r.NoReply(0, 50);
        r.Call(1, "XADD", "s", "668", "f", "v");
        r.Read(0);
    });

    /// <summary>
    /// An entry added and deleted before the waiter runs does not serve it: it waits on for the next
    /// (Redis 7.2 runs the command again and finds nothing; 7.0, the reference server, replied an
    /// empty entry list for the key). Checked against 7.2's behaviour.
    /// </summary>
    [Fact]
    public void XRead_EntryAddedAndDeletedInOneTransaction_KeepsWaitingAs72()
    {
        string transcript = BlockingDifferential.RunOurs(2, r =>
        {
            r[1].Call("XADD", "s", "1-0", "f", "v");
            r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
            r[1].Call("MULTI");
            r[1].Call("XADD", "s", "2-0", "f", "v");
            r[1].Call("XDEL", "s", "2-0");
            r[1].Call("EXEC");
            r.NoReply(0, 100);
            r[1].Call("XADD", "s", "3-0", "g", "w");
            r.Read(0);
        });
        Assert.Equal("[0] (no reply)\n    none\n"
            + "[0] (read)\n    *1\\r\\n*2\\r\\n$1\\r\\ns\\r\\n*1\\r\\n*2\\r\\n$3\\r\\n3-0\\r\\n*2\\r\\n$1\\r\\ng\\r\\n$1\\r\\nw\\r\\n\n", transcript);
    }

    [RedisFact]
    public void XRead_WaiterDisconnects_NothingLeftBehind() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Block(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r[0].Dispose();
        r.WaitBlocked(0);
        r.Call(1, "XADD", "s", "1-0", "f", "v");
        r.Call(1, "XREAD", "STREAMS", "s", "0");
    });

    /// <summary>Commands pipelined behind a blocked XREAD run only once it is served, in order.</summary>
    [RedisFact]
    public void XRead_PipelinedCommandsAfterIt_RunAfterTheWake() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Send(0, "XREAD", "BLOCK", "0", "STREAMS", "s", "$");
        r.Send(0, "XADD", "s", "5-0", "mine", "1");
        r.WaitBlocked(1);
        r.Call(1, "XADD", "s", "4-0", "theirs", "1");
        r.Read(0);
        r.Read(0);
        r.Call(1, "XRANGE", "s", "-", "+");
    });
}
