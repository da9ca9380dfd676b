using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// A minimal cluster client as the cluster-aware clients behave: it sends a key's command to the
/// slot's master as it last learned it, follows -MOVED (remembering the new owner) and -ASK (ASKING
/// then the command, once, on the node named), and retries -TRYAGAIN and -CLUSTERDOWN after a short
/// pause (after -CLUSTERDOWN it asks the other nodes it knows for the slot table, as a node removed
/// from the cluster says the cluster is down). Any other error, or a connection that fails, is
/// recorded as an error it could not retry.
/// One thread at a time.
/// </summary>
internal sealed class RedirectingClient : IDisposable
{
    private readonly int[] _owners;
    private readonly Dictionary<int, RespClient> _connections = new();

    private readonly HashSet<int> _known = new(); // every node heard of: where the slot table is asked again

    public RedirectingClient(int seedPort)
    {
        _owners = ClusterTools.SlotOwners(seedPort);
        _known.Add(seedPort);
        foreach (int p in _owners) if (p != 0) _known.Add(p);
    }

    public long Moved, Asked, Retried;
    public readonly List<string> Unretriable = new();

    private RespClient Connection(int port)
    {
        if (!_connections.TryGetValue(port, out var c))
            _connections[port] = c = new RespClient(new IPEndPoint(IPAddress.Loopback, port), 30_000);
        return c;
    }

    /// <summary>Runs a one-key command; the final reply, or null when it ended in an error that cannot be retried.</summary>
    public string? Run(string key, params string[] args)
    {
        int slot = ClusterTools.Slot(key);
        int port = _owners[slot];
        bool asking = false;
        for (int attempt = 0; attempt < 500; attempt++)
        {
            string reply;
            try
            {
                var c = Connection(port);
                if (asking)
                {
                    c.SendRaw(RespClient.Encode("ASKING").Concat(RespClient.Encode(args)).ToArray());
                    string ok = c.ReadReply();
                    if (ok != "+OK\r\n") return Fail($"ASKING on {port}: {ok}");
                    reply = c.ReadReply();
                }
                else reply = c.Call(args);
            }
            catch (Exception ex) when (ex is IOException or SocketException or ObjectDisposedException)
            {
                if (_connections.Remove(port, out var dead)) dead.Dispose();
                return Fail($"{string.Join(' ', args)} on {port}: {ex.Message}");
            }
            asking = false;
            if (reply.StartsWith("-MOVED ", StringComparison.Ordinal))
            {
                Moved++;
                port = PortOf(reply);
                _owners[slot] = port;
                _known.Add(port);
                continue;
            }
            if (reply.StartsWith("-ASK ", StringComparison.Ordinal))
            {
                Asked++;
                port = PortOf(reply);
                _known.Add(port);
                asking = true;
                continue;
            }
            if (reply.StartsWith("-TRYAGAIN", StringComparison.Ordinal) || reply.StartsWith("-CLUSTERDOWN", StringComparison.Ordinal))
            {
                Retried++;
                Thread.Sleep(20);
                // A node that says the cluster is down may have left it (del-node resets it: "Hash
                // slot not served"): as cluster clients do, the slot table is asked of the others.
                if (reply.StartsWith("-CLUSTERDOWN", StringComparison.Ordinal) && attempt % 5 == 4) Refresh(slot, port);
                port = _owners[slot];
                continue;
            }
            if (reply.StartsWith('-')) return Fail($"{string.Join(' ', args)} on {port}: {reply.TrimEnd()}");
            return reply;
        }
        return Fail($"{string.Join(' ', args)}: still redirected after 500 attempts");
    }

    /// <summary>Takes the slot table of the first other known node that has <paramref name="slot"/> assigned.</summary>
    private void Refresh(int slot, int downPort)
    {
        foreach (int p in _known.ToArray())
        {
            if (p == downPort) continue;
            try
            {
                var owners = ClusterTools.SlotOwners(p);
                if (owners[slot] == 0) continue;
                Array.Copy(owners, _owners, owners.Length);
                foreach (int o in owners) if (o != 0) _known.Add(o);
                return;
            }
            catch (Exception ex) when (ex is IOException or SocketException or FormatException or IndexOutOfRangeException)
            {
            }
        }
    }

    private string? Fail(string what)
    {
        lock (Unretriable) Unretriable.Add(what);
        return null;
    }

    private static int PortOf(string redirect)
    {
        string address = redirect.TrimEnd().Split(' ')[2];
        return int.Parse(address[(address.LastIndexOf(':') + 1)..]);
    }

    public void Dispose()
    {
        foreach (var c in _connections.Values) c.Dispose();
        _connections.Clear();
    }
}
