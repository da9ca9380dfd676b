using System.Net;
using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Common;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// What the redis-cli --cluster tests share: commands by port (nodes of this server and
/// redis-server alike), redis-cli runs, the slot table read from CLUSTER NODES, and keys written
/// and checked in bulk through their owners (values and TTLs).
/// </summary>
internal static partial class ClusterTools
{
    /// <summary>One command on 127.0.0.1:<paramref name="port"/>: a bulk's content, else the reply without its final CRLF.</summary>
    public static string Call(int port, params string[] args)
        => OurCluster.Text(new RespClient(new IPEndPoint(IPAddress.Loopback, port), 30_000), args);

    [GeneratedRegex(@"\x1b\[[0-9;]*m")]
    private static partial Regex Ansi();

    /// <summary>redis-cli with <paramref name="args"/>; its output without colours; asserts a clean exit.</summary>
    public static string Cli(string args, string? stdin = null, int timeoutMs = 600_000)
    {
        var cli = ReferenceRedis.CliPath ?? throw new InvalidOperationException("redis-cli missing");
        var (code, output) = ToolRunner.Run(cli, args, stdin, timeoutMs);
        output = Ansi().Replace(output, "");
        Assert.True(code == 0, $"redis-cli {args} exited with {code}:\n{Tail(output)}");
        return output;
    }

    /// <summary>The end of a long tool output (reshards print a line per slot).</summary>
    public static string Tail(string text, int lines = 60)
        => string.Join('\n', text.Split('\n').Where(l => !l.StartsWith("Moving slot", StringComparison.Ordinal)).TakeLast(lines));

    /// <summary>Waits until redis-cli --cluster check through <paramref name="port"/> finds no problem (every node agrees, no open slot, every slot covered).</summary>
    public static async Task WaitCheckedAsync(int port, int seconds = 60)
    {
        string last = "";
        await Eventually.WaitFor(() =>
        {
            var cli = ReferenceRedis.CliPath!;
            var (code, output) = ToolRunner.Run(cli, $"--cluster check 127.0.0.1:{port}", timeoutMs: 60_000);
            last = Ansi().Replace(output, "");
            if (code != 0 || !last.Contains("[OK] All nodes agree about slots configuration.") || !last.Contains("[OK] All 16384 slots covered.")
                || last.Contains("[WARNING]") || last.Contains("[ERR]")) return false;
            // A master turns its state ok 2 s after it starts (Redis's writable delay): until then it answers CLUSTERDOWN.
            foreach (var n in Nodes(port))
            {
                string info = Call(n.Port, "CLUSTER", "INFO");
                if (!info.Contains("cluster_state:ok"))
                {
                    last = $"{n.Port}: {info}";
                    return false;
                }
            }
            return true;
        }, () => last, seconds);
    }

    /// <summary>Waits until each of <paramref name="ports"/> lists <paramref name="count"/> nodes, none in handshake, failing or disconnected.</summary>
    public static async Task WaitKnownAsync(IEnumerable<int> ports, int count, int seconds = 60)
    {
        var list = ports.ToList();
        string last = "";
        await Eventually.WaitFor(() => list.All(p =>
        {
            last = $"{p}:\n" + Call(p, "CLUSTER", "NODES");
            var lines = last.Split('\n', StringSplitOptions.RemoveEmptyEntries).Skip(1).ToList();
            return lines.Count == count && !lines.Any(l => l.Contains("handshake") || l.Contains("fail") || l.Contains("disconnected"));
        }), () => last, seconds);
    }

    /// <summary>CLUSTER NODES parsed: id → (port, flags, master id, slot fields).</summary>
    public static List<(string Id, int Port, string Flags, string Master, string[] Slots)> Nodes(int port)
        => Call(port, "CLUSTER", "NODES").Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => l.Split(' '))
            .Select(f => (f[0], int.Parse(f[1].Split('@')[0].Split(':')[^1]), f[2], f[3], f.Skip(8).ToArray()))
            .ToList();

    /// <summary>The port of each slot's master as node <paramref name="port"/> sees it (0: unassigned).</summary>
    public static int[] SlotOwners(int port)
    {
        var owners = new int[16384];
        foreach (var n in Nodes(port))
        {
            foreach (var range in n.Slots)
            {
                if (range.StartsWith('[')) continue; // [slot->-id] / [slot-<-id]: migrations, not ownership
                var parts = range.Split('-');
                int start = int.Parse(parts[0]), end = parts.Length > 1 ? int.Parse(parts[1]) : start;
                for (int s = start; s <= end; s++) owners[s] = n.Port;
            }
        }
        return owners;
    }

    /// <summary>The number of slots each master port serves, as <paramref name="port"/> sees it.</summary>
    public static Dictionary<int, int> SlotCounts(int port)
        => SlotOwners(port).Where(p => p != 0).GroupBy(p => p).ToDictionary(g => g.Key, g => g.Count());

    public static int Slot(string key) => Crc16.HashSlot(Encoding.UTF8.GetBytes(key));

    /// <summary>A key of the form prefix{tagN} whose slot is <paramref name="slot"/>.</summary>
    public static string KeyInSlot(string prefix, int slot)
    {
        for (int i = 0; i < 10_000_000; i++)
        {
            string key = $"{prefix}{{t{i}}}";
            if (Slot(key) == slot) return key;
        }
        throw new InvalidOperationException("no key found for slot " + slot);
    }

    /// <summary>Runs commands on one port pipelined in batches of 500; the replies in order.</summary>
    public static List<string> Pipeline(int port, IReadOnlyList<string[]> commands)
    {
        var replies = new List<string>(commands.Count);
        using var c = new RespClient(new IPEndPoint(IPAddress.Loopback, port), 60_000);
        for (int at = 0; at < commands.Count; at += 500)
        {
            var batch = commands.Skip(at).Take(500).ToList();
            var bytes = new List<byte>();
            foreach (var cmd in batch) bytes.AddRange(RespClient.Encode(cmd));
            c.SendRaw(bytes.ToArray());
            for (int i = 0; i < batch.Count; i++) replies.Add(c.ReadReply());
        }
        return replies;
    }

    /// <summary>Key i of a fill: every tenth has a TTL (about a day).</summary>
    public static string FillKey(string prefix, int i) => $"{prefix}:{i}";

    /// <summary>Writes <paramref name="count"/> string keys through their owners (as <paramref name="anyPort"/> sees the table).</summary>
    public static void Fill(int anyPort, string prefix, int count)
    {
        var owners = SlotOwners(anyPort);
        foreach (var group in Enumerable.Range(0, count).GroupBy(i => owners[Slot(FillKey(prefix, i))]))
        {
            var cmds = group.Select(i => i % 10 == 0
                ? new[] { "SET", FillKey(prefix, i), $"v{i}", "EX", "90000" }
                : new[] { "SET", FillKey(prefix, i), $"v{i}" }).ToList();
            var replies = Pipeline(group.Key, cmds);
            Assert.All(replies, r => Assert.Equal("+OK\r\n", r));
        }
    }

    /// <summary>Every key of a fill is on its owner with its value, and its TTL when it had one.</summary>
    public static void VerifyFill(int anyPort, string prefix, int count)
    {
        var owners = SlotOwners(anyPort);
        foreach (var group in Enumerable.Range(0, count).GroupBy(i => owners[Slot(FillKey(prefix, i))]))
        {
            Assert.NotEqual(0, group.Key);
            var keys = group.ToList();
            var values = Pipeline(group.Key, keys.Select(i => new[] { "GET", FillKey(prefix, i) }).ToList());
            var ttls = Pipeline(group.Key, keys.Select(i => new[] { "TTL", FillKey(prefix, i) }).ToList());
            for (int j = 0; j < keys.Count; j++)
            {
                int i = keys[j];
                string v = $"v{i}";
                Assert.True(values[j] == $"${v.Length}\r\n{v}\r\n", $"{FillKey(prefix, i)} on {group.Key}: {values[j]}");
                long ttl = long.Parse(ttls[j][1..^2]);
                if (i % 10 == 0) Assert.True(ttl > 80_000, $"{FillKey(prefix, i)} TTL {ttl}");
                else Assert.Equal(-1, ttl);
            }
        }
    }

    /// <summary>The keys held by the masters among <paramref name="ports"/> (DBSIZE summed).</summary>
    public static long MasterKeys(IEnumerable<int> ports)
        => ports.Where(p => Call(p, "ROLE").Contains("master")).Sum(p => long.Parse(Call(p, "DBSIZE")[1..]));
}
