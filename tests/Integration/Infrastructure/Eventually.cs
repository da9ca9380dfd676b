namespace RedisClone.Tests.Infrastructure;

/// <summary>Waiting, bounded, for something the server does in the background (closing sockets, dropping clients).</summary>
public static class Eventually
{
    /// <summary>Polls <paramref name="condition"/> every 20 ms for up to <paramref name="seconds"/>; fails with <paramref name="what"/> if it never holds.</summary>
    public static async Task WaitFor(Func<bool> condition, Func<string> what, int seconds = 10)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        bool held;
        // The verdict is the last poll's: asking again could see it change back (another test
        // opening descriptors) and fail a wait that succeeded.
        while (!(held = condition()) && DateTime.UtcNow < deadline) await Task.Delay(20);
        Assert.True(held, $"timed out waiting: {what()}");
    }

    /// <summary>
    /// <see cref="WaitFor"/> for a test that is not async: polls on the calling thread (a test that
    /// holds the thread anyway, with raw clients) instead of blocking on a task.
    /// </summary>
    public static void Wait(Func<bool> condition, Func<string> what, int seconds = 10)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        bool held;
        while (!(held = condition()) && DateTime.UtcNow < deadline) Thread.Sleep(20);
        Assert.True(held, $"timed out waiting: {what()}");
    }

    /// <summary>Waits until the server has no connected client.</summary>
    public static Task NoClients(TestServer server)
        => WaitFor(() => server.Server.Clients.IsEmpty, () => $"{server.Server.Clients.Count} connections still open on the server");
}
