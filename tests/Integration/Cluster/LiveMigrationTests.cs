using RedisClone.Tests.Cluster.Bus;
using RedisClone.Tests.Infrastructure;
using Xunit.Abstractions;
using static RedisClone.Tests.Cluster.ClusterTools;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Issue 28's first "must hold": a live migration from Redis. A cluster of redis-server nodes serves
/// a client writing and reading under load; nodes of this server join with add-node, every slot is
/// resharded onto them with redis-cli --cluster reshard, the redis-server nodes leave with
/// del-node; the client saw no error it could not retry and every key it was told was written is
/// there with its last value.
/// </summary>
public sealed class LiveMigrationTests(ITestOutputHelper output)
{
    private const int Keys = 20_000;

    [RedisFact]
    public async Task LiveMigration_RedisServerClusterToOurs_NoUnretriableErrorAndNoKeyLost()
    {
        if (ReferenceRedis.CliPath == null) return;
        var theirs = new List<ClusterRedis>();
        try
        {
            for (int i = 0; i < 3; i++) theirs.Add(ClusterRedis.Start("--cluster-node-timeout 5000") ?? throw new InvalidOperationException("redis-server did not start"));
            int[] theirPorts = theirs.Select(r => r.Port).ToArray();
            Cli($"--cluster create {string.Join(' ', theirPorts.Select(p => $"127.0.0.1:{p}"))} --cluster-yes", timeoutMs: 120_000);
            await WaitCheckedAsync(theirPorts[0]);

            // The data set: 20,000 keys, each acknowledged value remembered.
            var acked = new string?[Keys];
            using (var loader = new RedirectingClient(theirPorts[0]))
            {
                for (int i = 0; i < Keys; i++)
                {
                    string v = $"v{i}:0";
                    Assert.Equal("+OK\r\n", loader.Run($"lm:{i}", "SET", $"lm:{i}", v));
                    acked[i] = v;
                }
                Assert.Empty(loader.Unretriable);
            }

            await using var ours = OurCluster.Start(3);
            int[] ourPorts = Enumerable.Range(0, 3).Select(i => ours[i].Port).ToArray();

            // The client under load for the whole run: writes (new values, acknowledged ones remembered) and reads checked against them.
            using var stop = new CancellationTokenSource();
            var mismatches = new List<string>();
            long writes = 0, reads = 0; // written by the load thread, read with Interlocked
            using var client = new RedirectingClient(theirPorts[0]);
            var load = Task.Factory.StartNew(() =>
            {
                var random = new Random(28);
                long seq = 0;
                while (!stop.IsCancellationRequested && client.Unretriable.Count == 0)
                {
                    int i = random.Next(Keys);
                    if (random.Next(2) == 0)
                    {
                        string v = $"v{i}:{++seq}";
                        if (client.Run($"lm:{i}", "SET", $"lm:{i}", v) == "+OK\r\n")
                        {
                            acked[i] = v;
                            Interlocked.Increment(ref writes);
                        }
                    }
                    else
                    {
                        string? got = client.Run($"lm:{i}", "GET", $"lm:{i}");
                        reads++;
                        string want = $"${acked[i]!.Length}\r\n{acked[i]}\r\n";
                        if (got != null && got != want && mismatches.Count < 20) mismatches.Add($"lm:{i}: {got.TrimEnd()} instead of {acked[i]}");
                    }
                }
            }, TaskCreationOptions.LongRunning);

            // Our nodes join as masters.
            // (add-node checks the cluster first and stops if the nodes do not agree yet, so one at a time.)
            for (int i = 0; i < 3; i++)
            {
                Cli($"--cluster add-node 127.0.0.1:{ourPorts[i]} 127.0.0.1:{theirPorts[0]}");
                await WaitKnownAsync([.. theirPorts, .. ourPorts.Take(i + 1)], 4 + i);
                await WaitCheckedAsync(ourPorts[i]);
            }

            // Every slot of each redis-server master to one of ours.
            for (int i = 0; i < 3; i++)
            {
                string from = Call(theirPorts[i], "CLUSTER", "MYID"), to = Call(ourPorts[i], "CLUSTER", "MYID");
                int slots = SlotCounts(ourPorts[0])[theirPorts[i]];
                Cli($"--cluster reshard 127.0.0.1:{ourPorts[0]} --cluster-from {from} --cluster-to {to} --cluster-slots {slots} --cluster-yes --cluster-pipeline 100",
                    timeoutMs: 900_000);
                await WaitCheckedAsync(ourPorts[0]);
            }
            var counts = SlotCounts(ourPorts[1]);
            Assert.Equal(16384, ourPorts.Sum(p => counts.GetValueOrDefault(p)));

            // The redis-server nodes leave.
            foreach (int port in theirPorts) Cli($"--cluster del-node 127.0.0.1:{ourPorts[0]} {Call(port, "CLUSTER", "MYID")}");
            await WaitKnownAsync(ourPorts, 3);
            await WaitCheckedAsync(ourPorts[2]);

            // A little more load on our nodes alone, then the client stops.
            long writesBefore = Interlocked.Read(ref writes);
            await Eventually.WaitFor(() => Interlocked.Read(ref writes) > writesBefore + 200 || client.Unretriable.Count > 0 || load.IsCompleted, () => $"writes {writes}", 60);
            stop.Cancel();
            await load;
            output.WriteLine($"writes {writes}, reads {reads}, MOVED {client.Moved}, ASK {client.Asked}, retried {client.Retried}");

            Assert.Empty(client.Unretriable);
            Assert.Empty(mismatches);
            Assert.True(client.Moved > 0 && writes > 0);
            // Every key is on our nodes with its last acknowledged value.
            Assert.Equal(Keys, MasterKeys(ourPorts));
            var owners = SlotOwners(ourPorts[0]);
            foreach (var group in Enumerable.Range(0, Keys).GroupBy(i => owners[Slot($"lm:{i}")]))
            {
                Assert.Contains(group.Key, ourPorts);
                var keys = group.ToList();
                var values = Pipeline(group.Key, keys.Select(i => new[] { "GET", $"lm:{i}" }).ToList());
                for (int j = 0; j < keys.Count; j++)
                    Assert.True(values[j] == $"${acked[keys[j]]!.Length}\r\n{acked[keys[j]]}\r\n", $"lm:{keys[j]}: {values[j]} instead of {acked[keys[j]]}");
            }
        }
        finally
        {
            foreach (var r in theirs) r.Dispose();
        }
    }
}
