using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// What a node does to clients waiting on a slot it loses, compared with redis-server in cluster
/// mode (both loaded from <see cref="ClusterPair.TwoMasters"/>): a client blocked on a key (BLPOP,
/// BZPOPMIN, XREAD) is unblocked with -MOVED when the slot goes to another node, -CLUSTERDOWN Hash
/// slot not served when nobody serves it, -CLUSTERDOWN The cluster is down when the state fails
/// (Redis's clusterRedirectBlockedClientIfNeeded); the subscribers of the slot's shard channels get
/// a sunsubscribe push for each (removeChannelsInSlot). Keys: {t10648} slot 100, {t21117} 5000,
/// {s2} 2843, {s6} 2975, all served by this node at first.
/// </summary>
public sealed class ClusterUnblockTests
{
    private static List<string> Scenario(Func<RespClient> connect)
    {
        var replies = new List<string>();
        using var admin = connect();
        using var list = connect();
        using var zset = connect();
        using var sub2 = connect();
        using var sub3 = connect();
        Assert.StartsWith("%", sub3.Call("HELLO", "3"));
        replies.Add(sub2.Call("SSUBSCRIBE", "{t10648}x", "{t10648}ch"));
        replies.Add(sub2.ReadReply());
        replies.Add(sub3.Call("SSUBSCRIBE", "{t10648}ch"));
        list.Send("BLPOP", "{t10648}l", "0");
        zset.Send("BZPOPMIN", "{t21117}z", "0");
        WaitBlocked(admin, 2);

        // Slot 100 given to B: the BLPOP gets MOVED, each shard channel of the slot a sunsubscribe
        // (in channel order); the BZPOPMIN of slot 5000 stays blocked.
        replies.Add(admin.Call("CLUSTER", "SETSLOT", "100", "NODE", ClusterPair.Other));
        replies.Add(list.ReadReply());
        replies.Add(sub2.ReadReply());
        replies.Add(sub2.ReadReply());
        replies.Add(sub3.ReadReply());
        replies.Add(sub2.Call("PING")); // out of subscribe mode: a plain PONG
        replies.Add(sub3.Call("PUBSUB", "SHARDNUMSUB", "{t10648}ch"));
        WaitBlocked(admin, 1);

        // Slot 5000 unassigned with cluster-require-full-coverage no: nobody serves it.
        replies.Add(admin.Call("CONFIG", "SET", "cluster-require-full-coverage", "no"));
        replies.Add(admin.Call("CLUSTER", "DELSLOTS", "5000"));
        replies.Add(zset.ReadReply());

        // The state fails (another slot unassigned, full coverage required again): every blocked
        // client is told the cluster is down, an XREAD too.
        list.Send("XREAD", "BLOCK", "0", "STREAMS", "{s2}s", "$");
        zset.Send("BLMOVE", "{s2}a", "{s2}b", "LEFT", "RIGHT", "0");
        WaitBlocked(admin, 2);
        replies.Add(admin.Call("CONFIG", "SET", "cluster-require-full-coverage", "yes"));
        replies.Add(admin.Call("CLUSTER", "DELSLOTS", "2975"));
        replies.Add(list.ReadReply());
        replies.Add(zset.ReadReply());
        replies.Add(admin.Call("INFO", "errorstats").Contains("errorstat_MOVED:count=1") + " " + admin.Call("INFO", "errorstats").Contains("errorstat_CLUSTERDOWN:count=3"));
        return replies;
    }

    private static void WaitBlocked(RespClient admin, int count)
    {
        Eventually.WaitFor(() => admin.Call("INFO", "clients").Contains($"blocked_clients:{count}\r\n"),
            () => admin.Call("INFO", "clients"), seconds: 20).GetAwaiter().GetResult();
    }

    [RedisFact]
    public async Task BlockedAndShardSubscribers_SlotMovedUnassignedOrClusterDown_RedirectedAndUnsubscribedAsRedis()
    {
        await using var pair = ClusterPair.Start(ClusterPair.TwoMasters);
        await pair.WaitForOkAsync();
        var theirs = Scenario(pair.Theirs.Connect);
        var ours = Scenario(pair.Ours.Connect);
        Assert.Equal("-MOVED 100 127.0.0.1:24999\r\n", theirs[4]);
        Assert.Equal(string.Join("\n", theirs.Select(Differential.Show)), string.Join("\n", ours.Select(Differential.Show)));
    }
}
