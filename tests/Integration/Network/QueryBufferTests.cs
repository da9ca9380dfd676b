using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Network;

/// <summary>
/// The room a client's input takes (CLIENT LIST's qbuf, qbuf-free, tot-mem): it grows past the
/// first 16 KB for a big argument while it arrives, and an idle client gives it back, as Redis's
/// clientsCronResizeQueryBuffer frees the query buffer of a client idle for more than 2 seconds
/// (redis-server 7.0 then shows qbuf=0 qbuf-free=0 and its bare client struct as tot-mem).
/// </summary>
public class QueryBufferTests
{
    public static TheoryData<string> Transports => new("epoll", "sockets");

    private static Dictionary<string, long> Fields(RespClient monitor, string id)
    {
        string reply = monitor.Call("CLIENT", "LIST", "ID", id);
        return Regex.Matches(reply, @"(qbuf|qbuf-free|argv-mem|tot-mem)=(\d+)")
            .ToDictionary(m => m.Groups[1].Value, m => long.Parse(m.Groups[2].Value));
    }

    /// <summary>
    /// A command half sent, as redis-server 7.0 shows it: the arguments before the one arriving are
    /// argv-mem (SET and the key: 4), the bytes of the one arriving are qbuf, whether it is big (taken
    /// as it comes) or small (left in the input until complete); not the room reserved for it.
    /// </summary>
    [Theory]
    [MemberData(nameof(Transports))]
    public async Task QueryBuffer_CommandHalfSent_QbufIsTheArrivingArgumentArgvMemTheOthers(string transport)
    {
        await using var server = TestServer.Start(1, "--transport", transport);
        using var monitor = server.Connect();
        foreach (int size in new[] { 100_000, 10_000 })
        {
            using var c = server.Connect();
            string id = c.Call("CLIENT", "ID")[1..^2];
            c.SendRaw($"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n${size}\r\n" + new string('x', size / 2));
            await Eventually.WaitFor(() => Fields(monitor, id)["qbuf"] == size / 2,
                () => $"{size}: {monitor.Call("CLIENT", "LIST", "ID", id)}", seconds: 30);
            Assert.Equal(4, Fields(monitor, id)["argv-mem"]);
            c.SendRaw(new string('x', size / 2) + "\r\n");
            Assert.Equal("+OK\r\n", c.ReadReply());
            var done = Fields(monitor, id);
            Assert.Equal(0, done["qbuf"]);
            Assert.Equal(0, done["argv-mem"]);
        }
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task QueryBuffer_BigArgument_GrowsWhileArrivingAndShrinksOnceIdle(string transport)
    {
        await using var server = TestServer.Start(1, "--transport", transport);
        using var monitor = server.Connect();
        using var c = server.Connect();
        string id = c.Call("CLIENT", "ID")[1..^2];
        long fresh = Fields(monitor, id)["tot-mem"];

        c.SendRaw(Encoding.ASCII.GetBytes("*3\r\n$3\r\nSET\r\n$5\r\nqb:k1\r\n$100000\r\n" + new string('x', 50_000)));
        await Eventually.WaitFor(() => Fields(monitor, id)["tot-mem"] >= fresh + 50_000,
            () => $"the input did not grow for the big argument: {monitor.Call("CLIENT", "LIST", "ID", id)}", seconds: 30);
        c.SendRaw(new string('x', 50_000) + "\r\n");
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal(":100000\r\n", c.Call("STRLEN", "qb:k1"));

        // Idle for more than 2 seconds: the room goes back (bounded wait; the cron looks once a second).
        // The parse arena and (epoll) the receive buffer are given back in two steps, on two threads:
        // wait for both, or the check below can land between them.
        await Eventually.WaitFor(() =>
            {
                var now = Fields(monitor, id);
                return now["tot-mem"] <= fresh && (transport != "epoll" || now["qbuf-free"] == 0);
            },
            () => $"an idle client kept its room: {monitor.Call("CLIENT", "LIST", "ID", id)} (fresh tot-mem {fresh})", seconds: 30);
        var idle = Fields(monitor, id);
        Assert.Equal(0, idle["qbuf"]);
        if (transport == "epoll") Assert.Equal(0, idle["qbuf-free"]); // the receive buffer is released too, as Redis's

        // It still works, and grows again when it must.
        Assert.Equal("+OK\r\n", c.Call("SET", "qb:k2", new string('y', 70_000)));
        Assert.Equal(":70000\r\n", c.Call("STRLEN", "qb:k2"));
    }
}
