using RedisClone.Commands;
using RedisClone.Execution;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// The redirection check is on the hot path of a cluster node: checking and running GET/SET/MSET/
/// MGET/INCR through the execution layer's own calls (CommandChecks, which runs ClusterRouting, then
/// CommandRunner) allocates nothing per command once the keys exist, as without cluster mode.
/// </summary>
public sealed class ClusterAllocationTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void CheckAndRun_SteadyState_AllocatesNothing(bool cluster)
    {
        string dir = Directory.CreateTempSubdirectory("clu-alloc-").FullName;
        string[] args = cluster
            ? ["--port", "0", "--shards", "1", "--dir", dir, "--cluster-enabled", "yes"]
            : ["--port", "0", "--shards", "1", "--dir", dir];
        var server = new RedisServer(ServerOptions.Parse(args));
        try
        {
            if (server.Cluster is { } state)
            {
                state.Initialize();
                for (int slot = 0; slot < RedisClone.Cluster.ClusterState.Slots; slot++) state.AddSlot(state.Myself, slot);
                // A master turns ok 2 s after its first state check, as Redis's does.
                Infrastructure.Eventually.Wait(() =>
                {
                    state.UpdateState();
                    return state.StateOk;
                }, () => "cluster state never ok", seconds: 30);
            }
            var commands = new CommandBuffer();
            Add(commands, "SET", "key", "value-1");
            Add(commands, "GET", "key");
            Add(commands, "MSET", "{a}x", "1", "{a}y", "2");
            Add(commands, "MGET", "{a}x", "{a}y");
            Add(commands, "SET", "counter", "100000");
            Add(commands, "INCR", "counter");
            Add(commands, "PING");
            var replies = new ReplyBuffer(1 << 16);
            var client = new ClientSession(1, null, null, () => { });

            void RunAll()
            {
                long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                for (int i = 0; i < commands.Count; i++)
                {
                    var def = CommandChecks.Check(server, client, commands, i, now, out _, out string? error);
                    Assert.True(def != null, error);
                    Assert.True(CommandRunner.Run(server, client, commands, i, def, replies, now));
                }
                replies.Clear();
            }

            RunAll();
            RunAll();
            var windows = new List<long>();
            // Up to ten windows of 1,000 rounds, one of which must allocate nothing: an allocation per
            // command shows in every window, while a few hundred bytes now and then were seen in all of
            // three windows while the rest of the suite ran beside (not reproduced alone, cause unknown).
            for (int w = 0; w < 10; w++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 1000; i++) RunAll();
                windows.Add(GC.GetAllocatedBytesForCurrentThread() - before);
                if (windows[^1] == 0) break;
            }
            Assert.True(windows[^1] == 0,
                $"allocated {string.Join(", ", windows.Select(b => b / 1000.0))} bytes per round of {commands.Count} commands");
        }
        finally
        {
            server.Cluster?.Dispose();
            server.Shards.Dispose();
            Directory.Delete(dir, recursive: true);
        }
    }

    private static void Add(CommandBuffer commands, params string[] args)
    {
        commands.BeginCommand();
        foreach (var a in args) System.Text.Encoding.ASCII.GetBytes(a, commands.AddArg(a.Length));
        commands.EndCommand();
    }
}
