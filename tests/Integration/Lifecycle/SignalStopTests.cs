using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lifecycle;

/// <summary>
/// SIGTERM (docker stop) and SIGINT (Ctrl+C) sent to the server as a process of its own: the exit
/// status, Redis 7.2's log lines in Redis's order, what is saved, the pid file, and the replies a
/// pipelining client gets before its connection closes.
/// </summary>
public sealed partial class SignalStopTests : IDisposable
{
    private const int SIGINT = 2, SIGTERM = 15;
    private const int OpenFiles = 4096;

    private readonly string _dir = Directory.CreateTempSubdirectory("redisclone-lifecycle-").FullName;

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    private ExternalServer Start(string args) => ExternalServer.Start(OpenFiles, $"--dir '{_dir}' {args}");

    /// <summary>The log's messages with their level marks ("* User requested shutdown..."), in order.</summary>
    private static List<string> Messages(string output)
        => LogLine().Matches(output).Select(m => m.Groups[1].Value + " " + m.Groups[2].Value.TrimEnd()).ToList();

    /// <summary>Asserts that <paramref name="expected"/> appear in the log in this order (other lines may come between).</summary>
    private static void AssertInOrder(string output, params string[] expected)
    {
        var messages = Messages(output);
        int at = 0;
        foreach (string line in expected)
        {
            int found = messages.FindIndex(at, m => m == line);
            Assert.True(found >= 0, $"\"{line}\" missing (or out of order) in:\n{string.Join('\n', messages)}");
            at = found + 1;
        }
    }

    private static long DbSize(ExternalServer server)
    {
        using var c = server.Connect();
        return long.Parse(c.Call("DBSIZE").Trim(':', '\r', '\n'));
    }

    private static void Fill(ExternalServer server, int keys)
    {
        using var c = server.Connect();
        var batch = new StringBuilder();
        for (int i = 0; i < keys; i++) batch.Append("SET key:").Append(i).Append(" value:").Append(i).Append("\r\n");
        c.SendRaw(batch.ToString());
        for (int i = 0; i < keys; i++) Assert.Equal("+OK\r\n", c.ReadReply());
    }

    [Fact]
    public void Sigterm_WithSavePoints_SavesRemovesPidFileAndExitsZero()
    {
        string pidFile = Path.Combine(_dir, "redis.pid");
        using (var server = Start($"--save '3600 1' --pidfile '{pidFile}'"))
        {
            Fill(server, 1000);
            Assert.True(File.Exists(pidFile));
            server.Signal(SIGTERM);
            Assert.Equal(0, server.WaitForExit());
            AssertInOrder(server.Output,
                "# Received SIGTERM scheduling shutdown...",
                "* User requested shutdown...",
                "* Saving the final RDB snapshot before exiting.",
                "* DB saved on disk",
                "* Removing the pid file.",
                "# Redis is now ready to exit, bye bye...");
            Assert.False(File.Exists(pidFile));
        }
        Assert.True(File.Exists(Path.Combine(_dir, "dump.rdb")));
        using var again = Start("--save ''");
        Assert.Equal(1000, DbSize(again));
    }

    [Fact]
    public void Sigint_NoSavePointsNoAof_SavesNothing()
    {
        using var server = Start("--save ''");
        Fill(server, 10);
        server.Signal(SIGINT);
        Assert.Equal(0, server.WaitForExit());
        AssertInOrder(server.Output,
            "# Received SIGINT scheduling shutdown...",
            "* User requested shutdown...",
            "# Redis is now ready to exit, bye bye...");
        Assert.DoesNotContain("Saving the final RDB snapshot", server.Output);
        Assert.False(File.Exists(Path.Combine(_dir, "dump.rdb")));
    }

    [Fact]
    public void Sigint_InheritedAsIgnored_StillStopsTheServer()
    {
        // A background job of a shell without job control (nohup server & in a script) starts with
        // SIGINT ignored; redis-server installs its handler anyway, and so must we.
        using var server = ExternalServer.Start(OpenFiles, $"--dir '{_dir}' --save ''", sigintIgnored: true);
        Fill(server, 10);
        server.Signal(SIGINT);
        Assert.Equal(0, server.WaitForExit());
        AssertInOrder(server.Output,
            "# Received SIGINT scheduling shutdown...",
            "# Redis is now ready to exit, bye bye...");
    }

    [Fact]
    public void Sigterm_AppendOnly_FsyncsTheAofBeforeExiting()
    {
        using (var server = Start("--save '' --appendonly yes --appendfsync no"))
        {
            Fill(server, 500);
            server.Signal(SIGTERM);
            Assert.Equal(0, server.WaitForExit());
            AssertInOrder(server.Output,
                "# Received SIGTERM scheduling shutdown...",
                "* User requested shutdown...",
                "* Calling fsync() on the AOF file.",
                "# Redis is now ready to exit, bye bye...");
            Assert.DoesNotContain("Saving the final RDB snapshot", server.Output);
        }
        using var again = Start("--save '' --appendonly yes");
        Assert.Equal(500, DbSize(again));
    }

    [Fact]
    public void Sigterm_ShutdownOnSigtermNosave_SkipsTheSaveDespiteSavePoints()
    {
        using var server = Start("--save '3600 1' --shutdown-on-sigterm nosave");
        Fill(server, 10);
        server.Signal(SIGTERM);
        Assert.Equal(0, server.WaitForExit());
        Assert.DoesNotContain("Saving the final RDB snapshot", server.Output);
        Assert.False(File.Exists(Path.Combine(_dir, "dump.rdb")));
    }

    [Fact]
    public void Sigint_ShutdownOnSigintSave_SavesWithoutSavePoints()
    {
        using (var server = Start("--save '' --shutdown-on-sigint save"))
        {
            Fill(server, 10);
            server.Signal(SIGINT);
            Assert.Equal(0, server.WaitForExit());
            AssertInOrder(server.Output, "* Saving the final RDB snapshot before exiting.", "* DB saved on disk");
        }
        using var again = Start("--save ''");
        Assert.Equal(10, DbSize(again));
    }

    /// <summary>
    /// A second signal while a signalled stop is under way exits at once with status 1 and removes
    /// the temporary RDB file; the file being written never replaces dump.rdb. Redis does this for a
    /// second SIGINT and only logs a second SIGTERM; the issue asks that any second signal force the
    /// exit. (rdb-key-save-delay makes the final save slow, as Redis's own tests do.)
    /// </summary>
    [Theory]
    [InlineData(SIGINT)]
    [InlineData(SIGTERM)]
    public void SecondSignal_DuringSlowSave_ExitsOneAndLeavesNoTempFile(int second)
    {
        using var server = Start("--save '3600 1' --rdb-key-save-delay 2000");
        Fill(server, 5000); // 10 s of saving
        server.Signal(SIGTERM);
        server.WaitForOutput("Saving the final RDB snapshot before exiting.");
        // The save creates its temporary file a moment after that line (later on a loaded machine).
        Eventually.Wait(() => Directory.GetFiles(_dir, "temp-*.rdb").Length > 0, () => "no temp-*.rdb while the final save runs");
        server.Signal(second);
        Assert.Equal(1, server.WaitForExit(5000));
        AssertInOrder(server.Output,
            "# Received SIGTERM scheduling shutdown...",
            "* Saving the final RDB snapshot before exiting.",
            "# You insist... exiting now.");
        Assert.DoesNotContain("DB saved on disk", server.Output);
        Assert.Empty(Directory.GetFiles(_dir, "temp-*.rdb"));
        Assert.False(File.Exists(Path.Combine(_dir, "dump.rdb")));
    }

    /// <summary>
    /// Redis: a final save that fails keeps the server running (stopping would lose the data); the
    /// next stop tries again, and FORCE stops anyway.
    /// </summary>
    [Fact]
    public void Sigterm_SaveFails_ServerKeepsRunning()
    {
        // A non-empty directory where the file goes: the rename over it fails.
        Directory.CreateDirectory(Path.Combine(_dir, "dump.rdb", "x"));
        using var server = Start("--save '3600 1'");
        Fill(server, 10);
        server.Signal(SIGTERM);
        server.WaitForOutput("Errors trying to shut down the server. Check the logs for more information.");
        AssertInOrder(server.Output,
            "# Received SIGTERM scheduling shutdown...",
            "* User requested shutdown...",
            "* Saving the final RDB snapshot before exiting.",
            "# Error trying to save the DB, can't exit.",
            "# Errors trying to shut down the server. Check the logs for more information.");
        Assert.False(server.HasExited);
        using (var c = server.Connect())
        {
            Assert.Equal("+PONG\r\n", c.Call("PING"));
            Assert.Equal("+OK\r\n", c.Call("SET", "after", "1"));
            Assert.Equal("-ERR Errors trying to SHUTDOWN. Check logs.\r\n", c.Call("SHUTDOWN"));
            Assert.Equal("+PONG\r\n", c.Call("PING"));
            c.Send("SHUTDOWN", "FORCE");
            Assert.True(c.IsClosedByServer());
        }
        Assert.Equal(0, server.WaitForExit());
        AssertInOrder(server.Output, "# Error trying to save the DB. Exit anyway.", "# Redis is now ready to exit, bye bye...");
    }

    /// <summary>
    /// A client pipelining INCRs when the stop comes gets a whole reply for each command that ran,
    /// then the end of the stream (no reset): the saved counter is exactly the number of replies. On
    /// each transport: the epoll loops, Pipelines.Sockets.Unofficial (<c>--transport sockets</c>), and
    /// TLS (always on the latter), whose end of stream is close_notify before the FIN. The client
    /// goes on sending, and stops reading from the signal until the server is about to close its
    /// connections, so that then commands are unread on the server's side and replies are still on
    /// their way: a close at that point resets the connection and drops those replies.
    /// </summary>
    [Theory]
    [InlineData("epoll")]
    [InlineData("sockets")]
    [InlineData("tls")]
    public async Task Sigterm_WhilePipelining_EveryRepliedCommandIsSavedAndDelivered(string transport)
    {
        long replies = 0;
        using var tlsFiles = transport == "tls" ? new TlsFiles() : null;
        int tlsPort = tlsFiles == null ? 0 : ReferenceRedis.FreePort();
        // TLS: port 0 with a tls-port is the TLS port alone, as in Redis.
        string serverArgs = tlsFiles == null ? $"--transport {transport}" : string.Join(' ', tlsFiles.ServerArgs(tlsPort, "no").Select(a => $"'{a}'"));
        using (var server = Start($"--save '3600 1' {serverArgs}"))
        {
            using var tls = tlsFiles == null ? null : new TlsClient(tlsPort, tlsFiles.Ca);
            using var stream = tls?.Stream ?? PlainStream(server.Port);
            byte[] one = Encoding.ASCII.GetBytes("*2\r\n$4\r\nINCR\r\n$7\r\ncounter\r\n");
            var chunk = new byte[one.Length * 1000];
            for (int i = 0; i < 1000; i++) one.CopyTo(chunk, i * one.Length);
            long sent = 0;
            bool signalled = false;
            using var stopSending = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            var sender = Task.Run(() =>
            {
                try
                {
                    while (!stopSending.IsCancellationRequested)
                    {
                        stream.Write(chunk);
                        Interlocked.Add(ref sent, 1000);
                        if (Volatile.Read(ref signalled)) Thread.Sleep(10); // enough to keep commands coming
                    }
                }
                catch (Exception ex) when (ex is IOException or ObjectDisposedException) { } // the server is gone, or we closed
            });

            var buffer = new byte[1 << 16];
            int held = 0; // bytes of a reply not yet complete, at the start of buffer
            long lastValue = 0;
            while (true)
            {
                int n;
                try { n = stream.Read(buffer, held, buffer.Length - held); }
                catch (IOException ex) { throw new Xunit.Sdk.XunitException($"the connection was reset after {replies} replies: {ex.Message}"); }
                if (n == 0) break;
                int end = held + n, start = 0;
                for (int lf; (lf = Array.IndexOf(buffer, (byte)'\n', start, end - start)) >= 0; start = lf + 1)
                {
                    long value = 0;
                    for (int i = start + 1; i < lf - 1; i++) value = value * 10 + (buffer[i] - '0');
                    if (buffer[start] != ':' || buffer[lf - 1] != '\r' || value != lastValue + 1)
                        throw new Xunit.Sdk.XunitException($"reply {replies + 1}: {Encoding.ASCII.GetString(buffer, start, lf + 1 - start)}");
                    lastValue = value;
                    replies++;
                }
                held = end - start;
                Array.Copy(buffer, start, buffer, 0, held);
                if (!signalled && replies > 1000)
                {
                    server.Signal(SIGTERM);
                    Volatile.Write(ref signalled, true);
                    // Not reading until the server is about to close its connections: the replies
                    // back up, so they are still on their way when it does.
                    var waited = System.Diagnostics.Stopwatch.StartNew();
                    while (!server.Output.Contains("Redis is now ready to exit, bye bye...") && waited.ElapsedMilliseconds < 20_000) Thread.Sleep(5);
                    Thread.Sleep(50);
                }
            }
            Assert.True(signalled, $"the connection ended after {replies} replies, before the signal");
            Assert.Equal(0, held); // no reply cut in the middle
            stopSending.Cancel();
            stream.Dispose(); // as a client does at the end of the stream (a write still under way then fails)
            tls?.Dispose();
            await sender.WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal(0, server.WaitForExit());
            Assert.InRange(replies, 1001, Interlocked.Read(ref sent));
        }
        using var again = Start("--save ''");
        using var c = again.Connect();
        Assert.Equal($"${replies.ToString().Length}\r\n{replies}\r\n", c.Call("GET", "counter"));
    }

    private static NetworkStream PlainStream(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Connect(new IPEndPoint(IPAddress.Loopback, port));
        return new NetworkStream(socket, ownsSocket: true);
    }

    /// <summary>SHUTDOWN as a command: no reply, the connection closes, the stop's lines, exit 0; SAVE saves without save points.</summary>
    [Fact]
    public void ShutdownSave_NoSavePoints_SavesAndExitsZero()
    {
        using (var server = Start("--save ''"))
        {
            Fill(server, 20);
            using var c = server.Connect();
            c.Send("SHUTDOWN", "SAVE");
            Assert.True(c.IsClosedByServer());
            Assert.Equal(0, server.WaitForExit());
            AssertInOrder(server.Output,
                "* User requested shutdown...",
                "* Saving the final RDB snapshot before exiting.",
                "* DB saved on disk",
                "# Redis is now ready to exit, bye bye...");
        }
        using var again = Start("--save ''");
        Assert.Equal(20, DbSize(again));
    }

    [Fact]
    public void ShutdownNosave_WithSavePoints_SavesNothing()
    {
        using var server = Start("--save '3600 1'");
        Fill(server, 20);
        using var c = server.Connect();
        c.Send("SHUTDOWN", "NOSAVE", "NOW");
        Assert.True(c.IsClosedByServer());
        Assert.Equal(0, server.WaitForExit());
        Assert.DoesNotContain("Saving the final RDB snapshot", server.Output);
        Assert.False(File.Exists(Path.Combine(_dir, "dump.rdb")));
    }

    /// <summary>Two clients sending SHUTDOWN at once: one stop, both connections closed without a reply, exit 0.</summary>
    [Fact]
    public void Shutdown_FromTwoClientsAtOnce_OneCleanStop()
    {
        using var server = Start("--save '3600 1'");
        Fill(server, 100);
        using var a = server.Connect();
        using var b = server.Connect();
        a.Send("SHUTDOWN");
        b.Send("SHUTDOWN");
        Assert.True(a.IsClosedByServer());
        Assert.True(b.IsClosedByServer());
        Assert.Equal(0, server.WaitForExit());
        Assert.Single(Messages(server.Output), m => m == "# Redis is now ready to exit, bye bye...");
        Assert.Single(Messages(server.Output), m => m == "* DB saved on disk");
    }

    /// <summary>
    /// A signal while the data loads at start-up: Redis's loading line, no save (half the data is
    /// in), the pid file removed, exit 0, and the file on disk untouched.
    /// </summary>
    [Fact]
    public void Sigterm_WhileLoading_ExitsZeroWithoutSaving()
    {
        using (var filler = Start("--save '' --enable-debug-command yes"))
        using (var c = filler.Connect(120_000))
        {
            Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "2000000", "k", "10"));
            Assert.Equal("+OK\r\n", c.Call("SAVE"));
        }
        string dump = Path.Combine(_dir, "dump.rdb");
        var before = File.GetLastWriteTimeUtc(dump);
        long size = new FileInfo(dump).Length;
        string pidFile = Path.Combine(_dir, "loading.pid");
        using var server = ExternalServer.StartListening(OpenFiles, $"--dir '{_dir}' --save '3600 1' --pidfile '{pidFile}'");
        using (var c = server.Connect())
            Assert.StartsWith("-LOADING", c.Call("PING"));
        server.Signal(SIGTERM);
        Assert.Equal(0, server.WaitForExit());
        AssertInOrder(server.Output,
            "# Received shutdown signal during loading, scheduling shutdown.",
            "* User requested shutdown...",
            "* Removing the pid file.",
            "# Redis is now ready to exit, bye bye...");
        Assert.DoesNotContain("Saving the final RDB snapshot", server.Output);
        Assert.False(File.Exists(pidFile));
        Assert.Equal(before, File.GetLastWriteTimeUtc(dump));
        Assert.Equal(size, new FileInfo(dump).Length);
    }

    /// <summary>Redis kills a background save at the stop ("There is a child saving an .rdb. Killing it!") and saves in the foreground.</summary>
    [Fact]
    public void Sigterm_DuringBgsave_KillsItThenSaves()
    {
        using (var server = Start("--save '3600 1' --rdb-key-save-delay 1000"))
        {
            Fill(server, 5000);
            using (var c = server.Connect())
            {
                Assert.Equal("+Background saving started\r\n", c.Call("BGSAVE"));
                Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "rdb-key-save-delay", "0"));
            }
            server.Signal(SIGTERM);
            Assert.Equal(0, server.WaitForExit());
            AssertInOrder(server.Output,
                "* User requested shutdown...",
                "# There is a child saving an .rdb. Killing it!",
                "* Saving the final RDB snapshot before exiting.",
                "* DB saved on disk",
                "# Redis is now ready to exit, bye bye...");
            Assert.Empty(Directory.GetFiles(_dir, "temp-*.rdb"));
        }
        using var again = Start("--save ''");
        Assert.Equal(5000, DbSize(again));
    }

    [GeneratedRegex(@"^\d+:M \d{2} \w{3} \d{4} [\d:.]+ ([.\-*#]) (.*)$", RegexOptions.Multiline)]
    private static partial Regex LogLine();
}
