namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// A redis-server and a RedisClone for one test class alone: notify-keyspace-events is server-wide,
/// so on the shared servers (whose flags other tests switch) events would mix.
/// </summary>
public sealed class NotificationServers : IDisposable
{
    public ReferenceRedis? Reference { get; } = ReferenceRedis.StartOrNull();
    public TestServer Ours { get; } = TestServer.Start(shards: 4);

    public void Dispose()
    {
        Reference?.Dispose();
        Ours.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}

/// <summary>Collects keyspace notifications while a script runs, to compare with redis-server's.</summary>
public static class KeyspaceEvents
{
    /// <summary>
    /// Enables <paramref name="flags"/>, runs <paramref name="script"/> in database <paramref name="db"/>
    /// with a pattern subscriber attached, and returns every message it got (CRLF shown as spaces).
    /// </summary>
    public static List<string> Collect(Func<RespClient> connect, string flags, string[][] script, int db = 13, int settleMs = 300)
    {
        using var admin = connect();
        using var sub = connect();
        admin.Call("CONFIG", "SET", "notify-keyspace-events", flags);
        admin.Call("SELECT", db.ToString());
        admin.Call("FLUSHDB");
        sub.Call("PSUBSCRIBE", $"__key*@{db}__:*");
        foreach (var cmd in script) admin.Call(cmd);
        Thread.Sleep(settleMs);
        var events = new List<string>();
        while (sub.TryReadReply(200)?.Replace("\r\n", " ") is { } message) events.Add(message);
        admin.Call("CONFIG", "SET", "notify-keyspace-events", "");
        admin.Call("FLUSHDB");
        return events;
    }

    /// <summary>
    /// Starts a private redis-server and a private RedisClone (notify-keyspace-events is server-wide,
    /// and other tests read it on the shared ones), runs <paramref name="script"/> on both with
    /// <paramref name="flags"/> and asserts the same, non-empty event sequence.
    /// </summary>
    public static void AssertSameOnPrivateServers(string[][] script, string flags = "KEA")
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        var server = TestServer.Start(shards: 2);
        try
        {
            var theirs = Collect(reference.Connect, flags, script);
            var ours = Collect(server.Connect, flags, script);
            Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
            Assert.NotEmpty(ours);
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    /// <summary>Runs the script on both servers and asserts the same, non-empty event sequence.</summary>
    public static void AssertSame(NotificationServers servers, string flags, string[] script, int db = 13)
    {
        var commands = script.Select(Differential.SplitLine).ToArray();
        var theirs = Collect(servers.Reference!.Connect, flags, commands, db);
        var ours = Collect(servers.Ours.Connect, flags, commands, db);
        Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
        Assert.NotEmpty(ours);
    }
}
