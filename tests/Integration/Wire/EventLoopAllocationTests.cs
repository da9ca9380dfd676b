using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;
using RedisClone.Tests.Protocol;

namespace RedisClone.Tests.Wire;

/// <summary>
/// The whole path over a real socket (event loop, receive, parse, shard gates, commands, send)
/// allocates nothing per command in steady state, on either transport (the epoll loops, and
/// Pipelines.Sockets.Unofficial's socket pipes). Counted process-wide, so it runs in the
/// non-parallel collection; the client side is raw bytes into a reused buffer.
/// </summary>
[Collection(ProtocolIsolationCollection.Name)]
public sealed class EventLoopAllocationTests
{
    [Theory]
    [InlineData("epoll")]
    [InlineData("sockets")]
    public async Task PipelinedSetGetIncr_OverSocket_AllocateNothingPerCommand(string transport)
    {
        await using var server = TestServer.Start(2, "--transport", transport);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(System.Net.IPAddress.Loopback, server.Port);

        // 32 rounds of SET/GET/INCR on keys of both shards: 96 commands per write.
        var request = new StringBuilder();
        var reply = new StringBuilder();
        for (int i = 0; i < 32; i++)
        {
            request.Append($"*3\r\n$3\r\nSET\r\n$5\r\nkey:{i % 10}\r\n$8\r\nvalue-{i % 10:D2}\r\n");
            request.Append($"*2\r\n$3\r\nGET\r\n$5\r\nkey:{i % 10}\r\n");
            request.Append($"*2\r\n$4\r\nINCR\r\n$9\r\ncounter:{i % 2}\r\n");
        }
        byte[] requestBytes = Encoding.ASCII.GetBytes(request.ToString());
        byte[] buffer = new byte[64 * 1024];
        const int commandsPerRound = 96;

        long counter = 0;
        void Round()
        {
            socket.Send(requestBytes);
            // Replies: 32 x (+OK, $8 value, :n) — read until the last INCR's reply has arrived.
            counter += 16;
            int expected = 32 * (5 + 14) + ReplyLengths(counter - 16, 16) * 2;
            int got = 0;
            while (got < expected) got += socket.Receive(buffer, got, buffer.Length - got, SocketFlags.None);
            Assert.Equal(expected, got);
        }

        for (int i = 0; i < 2000; i++) Round(); // tiering and the pools settle
        var perCommand = new List<double>();
        for (int w = 0; w < 3; w++)
        {
            long before = GC.GetTotalAllocatedBytes(precise: true);
            long mine = GC.GetAllocatedBytesForCurrentThread(); // the client's own (socket calls), not the server's
            for (int i = 0; i < 1000; i++) Round();
            mine = GC.GetAllocatedBytesForCurrentThread() - mine;
            perCommand.Add((GC.GetTotalAllocatedBytes(precise: true) - before - mine) / (1000.0 * commandsPerRound));
            if (perCommand[^1] < 0.05) break;
        }
        // Background work (timers, the active expiry cycle) may charge a few bytes to a window of
        // 96,000 commands; one byte per command in every window is a per-command allocation.
        Assert.True(perCommand.Min() < 0.05, $"allocated {string.Join(", ", perCommand.Select(b => b.ToString("F3")))} bytes per command");
    }

    /// <summary>Total length of the INCR replies (":n\r\n") for values first+1 .. first+count of one counter.</summary>
    private static int ReplyLengths(long first, int count)
    {
        int total = 0;
        for (long v = first + 1; v <= first + count; v++) total += 3 + Digits(v);
        return total;
    }

    private static int Digits(long v)
    {
        int digits = 1;
        while (v >= 10) { v /= 10; digits++; }
        return digits;
    }
}
