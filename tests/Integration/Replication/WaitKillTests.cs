using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// WAIT's promise under a crash: a writer SETs distinct keys, each followed by WAIT 1; the master
/// (a process of its own) is SIGKILLed at a random moment and its replica promoted (REPLICAOF NO
/// ONE). Every write WAIT acknowledged must be on the new master. A few rounds here; the long run
/// (20 rounds and more, against redis-server too) is bench/memtier/failover.py --mode manual.
/// </summary>
public class WaitKillTests
{
    [Fact]
    public void WaitAcknowledged_MasterKilled_EveryAcknowledgedWriteOnThePromotedReplica()
    {
        if (!OperatingSystem.IsLinux()) return; // SIGKILL and the process helpers are Linux's
        var random = new Random(27);
        for (int round = 0; round < 3; round++)
        {
            string dir = Directory.CreateTempSubdirectory("rc-waitkill-").FullName;
            try
            {
                using var master = ExternalServer.Start(10240, $"--dir {dir} --save \"\" --repl-diskless-sync-delay 0");
                using var replica = ExternalServer.Start(10240, $"--dir {dir} --dbfilename replica.rdb --save \"\" --replicaof 127.0.0.1 {master.Port}");
                using (var probe = replica.Connect())
                    Eventually.Wait(() => probe.Call("INFO", "replication").Contains("master_link_status:up"), () => "replica linked", 30);

                var acknowledged = new List<string>();
                int written = 0;
                var writer = new Thread(() =>
                {
                    try
                    {
                        using var client = master.Connect(2000);
                        for (int i = 0; ; i++)
                        {
                            string key = $"r{round}:k{i}";
                            client.Send("SET", key, i.ToString());
                            if (client.ReadReply() != "+OK\r\n") return;
                            client.Send("WAIT", "1", "100");
                            string reply = client.ReadReply();
                            written++;
                            if (reply != ":0\r\n") lock (acknowledged) acknowledged.Add(key);
                        }
                    }
                    catch (Exception ex) when (ex is SocketException or IOException or TimeoutException or ObjectDisposedException)
                    {
                        // the master is gone
                    }
                }) { IsBackground = true };
                writer.Start();
                // Under load the writer may take a while to get going: kill only once writes are acknowledged.
                Eventually.Wait(() => { lock (acknowledged) return acknowledged.Count > 0; }, () => $"a write acknowledged ({written} written)", 30);
                Thread.Sleep(random.Next(300, 1200));
                master.Signal(9);
                master.WaitForExit();
                Assert.True(writer.Join(15_000), "the writer saw the master go");

                using var promoted = replica.Connect();
                // The replica applies what it received until it reads the end of the connection;
                // REPLICAOF NO ONE before that would drop the rest (as in Redis): wait for it.
                Eventually.Wait(() => promoted.Call("INFO", "replication").Contains("master_link_status:down"),
                    () => "the replica saw its master go", 15);
                Assert.Equal("+OK\r\n", promoted.Call("REPLICAOF", "NO", "ONE"));
                int missing = 0;
                lock (acknowledged)
                {
                    Assert.NotEmpty(acknowledged);
                    foreach (var key in acknowledged)
                        if (promoted.Call("EXISTS", key) != ":1\r\n") missing++;
                }
                Assert.True(missing == 0, $"round {round}: {missing} of {acknowledged.Count} acknowledged writes lost ({written} written)");
            }
            finally
            {
                try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
            }
        }
    }
}
