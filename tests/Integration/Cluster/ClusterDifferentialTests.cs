using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Cluster mode compared with redis-server started with --cluster-enabled yes: the CLUSTER
/// subcommands on a fresh node, and redirections on a node loaded from a prepared nodes.conf that
/// names a second master (nothing listens there: no bus is needed to route by the slot table).
/// Keys: {t10648} hashes to slot 100 (served here), {t16961} to 15495 (B's), {t13794} to 7000
/// (migrating to B), {t2882} to 9000 (B's, importing here), {t21117} to 5000 (served here).
/// </summary>
public sealed class ClusterDifferentialTests
{
    [RedisFact]
    public async Task ClusterCommands_FreshNode_SameRepliesAsRedis()
    {
        await using var pair = ClusterPair.Start();
        pair.AssertSame(
            "CLUSTER INFO", "CLUSTER NODES", "CLUSTER SLOTS", "CLUSTER SHARDS", "CLUSTER LINKS",
            "CLUSTER ADDSLOTS 1", "CLUSTER ADDSLOTS 150 150", "CLUSTER ADDSLOTS 1", "CLUSTER ADDSLOTS 16384", "CLUSTER ADDSLOTS -1",
            "CLUSTER ADDSLOTS x", "CLUSTER ADDSLOTS 2 x", "CLUSTER ADDSLOTSRANGE 5 1", "CLUSTER ADDSLOTSRANGE 1 2 3",
            "CLUSTER ADDSLOTSRANGE 10 20 15 30", "CLUSTER ADDSLOTSRANGE 10 20 30 40", "CLUSTER ADDSLOTS 3 4 5",
            "CLUSTER DELSLOTS 5000", "CLUSTER DELSLOTSRANGE 150 160", "CLUSTER DELSLOTSRANGE 15 16", "CLUSTER DELSLOTS 3",
            "CLUSTER NODES", "CLUSTER SLOTS", "CLUSTER SHARDS", "CLUSTER INFO",
            "CLUSTER COUNTKEYSINSLOT 1", "CLUSTER COUNTKEYSINSLOT x", "CLUSTER COUNTKEYSINSLOT 16384", "CLUSTER COUNTKEYSINSLOT -1",
            "CLUSTER GETKEYSINSLOT 1 x", "CLUSTER GETKEYSINSLOT 1 -1", "CLUSTER GETKEYSINSLOT 16384 1", "CLUSTER GETKEYSINSLOT 1 10",
            "CLUSTER SETSLOT 1 foo", "CLUSTER SETSLOT 1 migrating", "CLUSTER SETSLOT 1 migrating abc", "CLUSTER SETSLOT 5000 migrating abc",
            "CLUSTER SETSLOT 1 importing abc", "CLUSTER SETSLOT 5000 importing abc", "CLUSTER SETSLOT 1 node abc", "CLUSTER SETSLOT 1 stable x",
            "CLUSTER SETSLOT x stable", "CLUSTER SETSLOT 1 stable",
            "CLUSTER FORGET abc", "CLUSTER REPLICATE abc", "CLUSTER REPLICAS abc", "CLUSTER SLAVES abc", "CLUSTER COUNT-FAILURE-REPORTS abc",
            "CLUSTER FAILOVER", "CLUSTER FAILOVER x", "CLUSTER FAILOVER force", "CLUSTER FAILOVER takeover", "CLUSTER FAILOVER a b",
            "CLUSTER SET-CONFIG-EPOCH x", "CLUSTER SET-CONFIG-EPOCH -1", "CLUSTER RESET x", "CLUSTER RESET soft hard",
            "CLUSTER MEET 1.2.3", "CLUSTER MEET localhost 7000", "CLUSTER MEET 1.2.3.4 70000", "CLUSTER MEET 1.2.3.4 0",
            "CLUSTER MEET 1.2.3.4 1 2 3", "CLUSTER FOO", "CLUSTER NODES x", "CLUSTER KEYSLOT {a}b", "CLUSTER KEYSLOT",
            "CLUSTER SAVECONFIG", "CLUSTER MYID x", "CLUSTER BUMPEPOCH", "CLUSTER BUMPEPOCH", "CLUSTER INFO", "CLUSTER NODES",
            "CLUSTER SET-CONFIG-EPOCH 7",
            "ASKING", "READONLY", "READWRITE", "ASKING x",
            "SELECT 1", "SELECT 0", "SELECT x", "MOVE a 1", "SWAPDB 0 1", "REPLICAOF no one", "SLAVEOF no one", "COPY a b DB 1", "FAILOVER",
            "CLUSTER RESET", "CLUSTER NODES", "CLUSTER INFO");
        // CLUSTER FLUSHSLOTS and RESET refuse a node holding keys.
        pair.AssertSame("CLUSTER ADDSLOTSRANGE 0 16383", "CLUSTER COUNTKEYSINSLOT 5000");
        await pair.WaitForOkAsync();
        pair.AssertSame("SET {t21117}a 1", "SET {t21117}b 1", "SET {t10648} 1", "CLUSTER COUNTKEYSINSLOT 5000", "CLUSTER COUNTKEYSINSLOT 100",
            "CLUSTER FLUSHSLOTS", "CLUSTER RESET", "CLUSTER RESET hard", "CLUSTER REPLICATE " + "abc", "FLUSHALL", "CLUSTER FLUSHSLOTS",
            "CLUSTER INFO", "CLUSTER NODES");
        // Once settled, cluster_size counts the masters serving slots.
        using var c = pair.Ours.Connect();
        Assert.Equal("+OK\r\n", c.Call("CLUSTER", "ADDSLOTS", "1"));
        Assert.Contains("\r\ncluster_size:1\r\n", c.Call("CLUSTER", "INFO"));
    }

    [RedisFact]
    public async Task Redirections_PreparedNodesConf_SameAsRedis()
    {
        await using var pair = ClusterPair.Start(ClusterPair.TwoMasters);
        await pair.WaitForOkAsync();
        pair.AssertSame(
            "CLUSTER NODES", "CLUSTER SLOTS", "CLUSTER INFO", "CLUSTER REPLICAS " + ClusterPair.Other, "CLUSTER REPLICAS " + ClusterPair.OtherReplica,
            "CLUSTER COUNT-FAILURE-REPORTS " + ClusterPair.Other,
            // MOVED for B's slot, CROSSSLOT across slots, served here otherwise.
            "SET {t10648}a 1", "GET {t16961}", "MSET {t10648}a 1 {t16961} 2", "MSET {t10648}a 1 {t10648}b 2", "MGET {t10648}a {t10648}b",
            "DEL {t10648}a {t16961}", "PING", "DBSIZE", "EXISTS {t16961}",
            // Slot 7000 migrating to B: a missing key is ASKed there; some missing of several: TRYAGAIN.
            "GET {t13794}x", "SET {t13794}x 1", "MGET {t13794}x {t13794}x",
            // Slot 9000 imported from B: MOVED without ASKING; with it, served (once).
            "GET {t2882}x", "ASKING", "GET {t2882}x", "GET {t2882}x", "ASKING", "SET {t2882}x 1", "ASKING", "MGET {t2882}x {t2882}y",
            "ASKING", "MGET {t2882}x {t2882}x", "ASKING", "GET {t2882}x", "ASKING", "PING", "GET {t2882}x",
            "CLUSTER COUNTKEYSINSLOT 9000", "CLUSTER GETKEYSINSLOT 9000 5",
            // Now a key exists in 7000: it is served; a missing one with it: TRYAGAIN.
            "CLUSTER SETSLOT 7000 stable", "SET {t13794}x 1", "CLUSTER SETSLOT 7000 migrating " + ClusterPair.Other,
            "GET {t13794}x", "MGET {t13794}x {t13794}y", "MGET {t13794}y {t13794}z", "DEL {t13794}y",
            "CLUSTER SETSLOT 7000 node " + ClusterPair.Other, "DEL {t13794}x", "CLUSTER SETSLOT 7000 node " + ClusterPair.Other,
            "GET {t13794}x", "CLUSTER NODES", "CLUSTER SLOTS",
            // Transactions: a queued redirection aborts EXEC; EXEC itself checks the whole queue.
            "MULTI", "SET {t10648}a 1", "GET {t16961}", "EXEC",
            "MULTI", "SET {t10648}a 1", "SET {t10648}b 1", "EXEC",
            "MULTI", "SET {t10648}a 1", "SET {t21117} 1", "EXEC",
            // Scripts: declared keys are checked as a command's; undeclared ones by redis.call.
            "SPUBLISH {t16961} m", "SPUBLISH {t10648} m",
            "SELECT 1", "READONLY", "GET {t16961}", "READWRITE");
        pair.AssertSame(
            ["EVAL", "return 1", "1", "{t16961}"],
            ["EVAL", "return 1", "2", "{t10648}a", "{t16961}"],
            ["EVAL", "return redis.call('get','{t16961}')", "0"],
            ["EVAL", "return redis.call('get','{t16961}')", "1", "{t10648}"],
            ["EVAL", "redis.call('get','{t10648}b') return redis.call('get','{t10648}a')", "0"],
            ["EVAL", "redis.call('get','{t10648}b') return redis.call('get','{t21117}')", "0"],
            ["EVAL", "#!lua\nredis.call('get','{t10648}b') return redis.call('get','{t21117}')", "0"],
            ["EVAL", "#!lua flags=allow-cross-slot-keys\nredis.call('get','{t10648}b') return redis.call('get','{t21117}')", "0"],
            ["EVAL", "#!lua\nreturn redis.call('get','{t21117}')", "1", "{t10648}"]);
        // Keys that do not hash to one slot inside a script: Redis 7.2 names the command (7.0 said
        // "non local key"); followed here as 7.2 words it.
        using var c = pair.Ours.Connect();
        Assert.StartsWith("-ERR Command 'mget' in script attempted to access keys that do not hash to the same slot script:",
            c.Call("EVAL", "return redis.call('mget','{t10648}a','{t21117}')", "0"));
    }

    [RedisFact]
    public async Task Exec_KeysLeftTheMigratingSlotAfterQueueing_AskOrTryAgainAndDiscarded()
    {
        await using var pair = ClusterPair.Start(ClusterPair.TwoMasters);
        await pair.WaitForOkAsync();
        // Slot 7000 ({t13794}) is migrating to B. x and y exist when the transaction is queued; another
        // client deletes them before EXEC: EXEC decides again over the whole queue.
        string[][] steps =
        [
            ["A", "CLUSTER", "SETSLOT", "7000", "STABLE"], ["A", "SET", "{t13794}x", "1"], ["A", "SET", "{t13794}y", "2"],
            ["A", "CLUSTER", "SETSLOT", "7000", "MIGRATING", ClusterPair.Other],
            // Every key gone: ASK, the transaction discarded.
            ["A", "MULTI"], ["A", "GET", "{t13794}x"], ["A", "SET", "{t13794}y", "3"], ["B", "DEL", "{t13794}x", "{t13794}y"],
            ["A", "EXEC"], ["A", "EXEC"], ["A", "EXISTS", "{t13794}y"],
            // One of two gone: TRYAGAIN.
            ["A", "SET", "{t13794}x", "1"], ["A", "SET", "{t13794}y", "2"],
            ["A", "MULTI"], ["A", "MGET", "{t13794}x", "{t13794}y"], ["B", "DEL", "{t13794}y"], ["A", "EXEC"], ["A", "DISCARD"],
            // A WATCH is dropped with the discarded transaction.
            ["A", "WATCH", "{t13794}x"], ["A", "MULTI"], ["A", "GET", "{t13794}x"], ["B", "DEL", "{t13794}x"], ["A", "EXEC"],
            ["A", "MULTI"], ["A", "EXEC"],
            // Nothing gone: the transaction runs here.
            ["A", "SET", "{t13794}x", "5"], ["A", "MULTI"], ["A", "INCR", "{t13794}x"], ["A", "EXEC"],
            ["A", "INFO", "errorstats"],
        ];
        using var theirsA = pair.Theirs.Connect();
        using var theirsB = pair.Theirs.Connect();
        using var oursA = pair.Ours.Connect();
        using var oursB = pair.Ours.Connect();
        var failures = new System.Text.StringBuilder();
        foreach (var step in steps)
        {
            var cmd = step[1..];
            string expected = (step[0] == "A" ? theirsA : theirsB).Call(cmd).Replace(pair.Theirs.Port.ToString(), "<P>");
            string actual = (step[0] == "A" ? oursA : oursB).Call(cmd).Replace(pair.Ours.Port.ToString(), "<P>");
            if (expected != actual)
                failures.AppendLine($"{string.Join(' ', step)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
        }
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    }

    [RedisFact]
    public async Task RestoreAsking_ImportingSlot_ServedWithoutAsking()
    {
        await using var pair = ClusterPair.Start(ClusterPair.TwoMasters);
        await pair.WaitForOkAsync();
        // Each server restores its own DUMP payload (7.2 writes RDB version 11, which 7.0 refuses).
        static List<string> Run(RespClient c)
        {
            Assert.Equal("+OK\r\n", c.Call("SET", "{t10648}s", "v"));
            string dump = c.Call("DUMP", "{t10648}s");
            byte[] payload = System.Text.Encoding.Latin1.GetBytes(dump[(dump.IndexOf("\r\n", StringComparison.Ordinal) + 2)..^2]);
            byte[][] Cmd(string name, string key) => [System.Text.Encoding.ASCII.GetBytes(name), System.Text.Encoding.ASCII.GetBytes(key), "0"u8.ToArray(), payload];
            return
            [
                c.Call(Cmd("RESTORE", "{t2882}r")), c.Call(Cmd("RESTORE-ASKING", "{t2882}r")), c.Call("GET", "{t2882}r"),
                c.Call("ASKING"), c.Call("GET", "{t2882}r"), c.Call(Cmd("RESTORE-ASKING", "{t16961}r")), c.Call(Cmd("RESTORE-ASKING", "{t2882}r")),
            ];
        }
        using var t = pair.Theirs.Connect();
        using var o = pair.Ours.Connect();
        Assert.Equal(Run(t), Run(o));
    }

    [RedisFact]
    public async Task Config_ClusterParameters_AsRedis()
    {
        await using var pair = ClusterPair.Start(extra: "--cluster-announce-hostname h1 --cluster-port 0");
        pair.AssertSame(
            "CONFIG GET cluster-enabled", "CONFIG GET cluster-port", "CONFIG GET cluster-node-timeout", "CONFIG GET cluster-announce-ip",
            "CONFIG GET cluster-announce-port", "CONFIG GET cluster-announce-bus-port", "CONFIG GET cluster-announce-tls-port",
            "CONFIG GET cluster-announce-hostname", "CONFIG GET cluster-require-full-coverage", "CONFIG GET cluster-allow-reads-when-down",
            "CONFIG GET cluster-allow-pubsubshard-when-down", "CONFIG GET cluster-replica-validity-factor", "CONFIG GET cluster-slave-validity-factor",
            "CONFIG GET cluster-migration-barrier", "CONFIG GET cluster-allow-replica-migration", "CONFIG GET cluster-replica-no-failover",
            "CONFIG GET cluster-preferred-endpoint-type", "CONFIG GET cluster-link-sendbuf-limit",
            "CONFIG SET cluster-enabled no", "CONFIG SET cluster-port 1", "CONFIG SET cluster-config-file x",
            "CONFIG SET cluster-node-timeout 5000", "CONFIG SET cluster-announce-hostname bad_name", "CONFIG SET cluster-announce-hostname h2",
            "CONFIG SET cluster-preferred-endpoint-type hostname", "CONFIG SET cluster-replica-no-failover yes",
            "CONFIG SET cluster-announce-port 7777", "CONFIG SET cluster-announce-bus-port 8888", "CONFIG SET cluster-link-sendbuf-limit 1mb",
            "CONFIG SET cluster-require-full-coverage no", "CONFIG GET cluster-link-sendbuf-limit",
            "CLUSTER NODES", "CLUSTER ADDSLOTS 1", "CLUSTER SLOTS", "CLUSTER SHARDS",
            "CONFIG SET cluster-preferred-endpoint-type unknown-endpoint", "CLUSTER SLOTS", "CLUSTER SHARDS",
            "INFO cluster");
    }
}
