namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// Waiting, bounded, until a client is parked on a blocking command. A test that pushes after a
/// fixed sleep passes even when the push lands before the client blocked (the command then finds
/// the data and returns at once), so it proves nothing about waking; these wait for the server to
/// say the client is blocked: its CLIENT LIST line shows flags=b, or INFO's blocked_clients count.
/// </summary>
public static class Blocked
{
    /// <summary>Sends <paramref name="command"/> on <paramref name="waiter"/> and returns once the
    /// server shows that connection blocked (asked through <paramref name="observer"/>).</summary>
    public static void Send(RespClient waiter, RespClient observer, params string[] command)
    {
        string id = waiter.Call("CLIENT", "ID").Trim(':', '\r', '\n');
        waiter.Send(command);
        WaitFor(() => IsBlocked(observer, id), () => $"client {id} did not block on {string.Join(' ', command)}: {observer.Call("CLIENT", "LIST", "ID", id)}");
    }

    /// <summary>Waits until INFO's blocked_clients is exactly <paramref name="count"/> (for a server of the test's own).</summary>
    public static void WaitForCount(RespClient observer, int count, int seconds = 10)
    {
        string line = $"blocked_clients:{count}\r\n";
        WaitFor(() => observer.Call("INFO", "clients").Contains(line), () => $"expected {line.Trim()}: {observer.Call("INFO", "clients")}", seconds);
    }

    private static bool IsBlocked(RespClient observer, string id)
    {
        string list = observer.Call("CLIENT", "LIST", "ID", id);
        int at = list.IndexOf(" flags=", StringComparison.Ordinal);
        if (at < 0) return false;
        int end = list.IndexOf(' ', at + 7);
        return list.AsSpan(at + 7, end - at - 7).Contains('b');
    }

    private static void WaitFor(Func<bool> condition, Func<string> what, int seconds = 10)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, $"timed out after {seconds} s: {what()}");
            Thread.Sleep(5);
        }
    }
}
