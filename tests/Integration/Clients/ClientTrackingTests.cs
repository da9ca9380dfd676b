using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Clients;

/// <summary>
/// CLIENT TRACKING (client-side caching): each scenario runs, with several connections, on a private
/// redis-server and a private RedisClone, and the transcripts (every reply, every invalidation
/// message, and "none" where no message may arrive) must be byte-identical. Client ids differ
/// between the servers, so each id a scenario learns is replaced by a name in the transcript.
/// </summary>
public sealed class ClientTrackingTests
{
    /// <summary>A scenario's view of one server: connections, and a transcript of what they received.</summary>
    internal sealed class Transcript(Func<RespClient> connect) : IDisposable
    {
        private readonly List<RespClient> _clients = new();
        private readonly Dictionary<string, string> _ids = new();
        public readonly StringBuilder Log = new();

        public RespClient Connect(int protocol = 2)
        {
            var c = connect();
            _clients.Add(c);
            if (protocol == 3) c.Call("HELLO", "3");
            return c;
        }

        /// <summary>The connection's id, which the transcript shows as <paramref name="name"/>.</summary>
        public string Id(RespClient c, string name)
        {
            var id = c.Call("CLIENT", "ID")[1..^2];
            _ids[id] = name;
            return id;
        }

        public void Call(RespClient c, params string[] args)
        {
            bool showsIds = args.Length == 2 && args[0] == "CLIENT" && args[1] is "GETREDIR" or "TRACKINGINFO";
            var shown = args.Select((a, i) => i > 0 && args[i - 1] == "REDIRECT" ? _ids.GetValueOrDefault(a, a) : a);
            Record(string.Join(' ', shown), c.Call(args), showsIds);
        }

        /// <summary>
        /// Closes <paramref name="c"/> (whose id is <paramref name="id"/>) and waits until the server no
        /// longer lists it, asking through <paramref name="observer"/> (not recorded): a server notices
        /// a close a moment later, later still on a loaded machine.
        /// </summary>
        public void Close(RespClient c, string id, RespClient observer)
        {
            c.Dispose();
            Eventually.Wait(() => observer.Call("CLIENT", "LIST", "ID", id) == "$0\r\n\r\n", () => $"the server still lists client {id}");
        }

        /// <summary>One message that must arrive (an invalidation).</summary>
        public void Push(RespClient c) => Record("  push", c.ReadReply(), maskIds: true);

        /// <summary>Sends a command whose replies <see cref="Reply"/> and <see cref="Evicted"/> then read.</summary>
        public void Send(RespClient c, params string[] args)
        {
            c.Send(args);
            Log.Append(string.Join(' ', args)).AppendLine(" (sent)");
        }

        /// <summary>The next reply or message, whatever it is.</summary>
        public void Reply(RespClient c) => Record("  reply", c.ReadReply(), maskIds: true);

        /// <summary>
        /// One invalidation of a key tracking-table-max-keys evicted: Redis picks it at random, so the
        /// transcript shows only that it was one of <paramref name="candidates"/> (anything else shows as is).
        /// </summary>
        public void Evicted(RespClient c, params string[] candidates)
        {
            var reply = c.ReadReply();
            foreach (var key in candidates)
            {
                if (reply == $">2\r\n$10\r\ninvalidate\r\n*1\r\n${key.Length}\r\n{key}\r\n"
                    || reply == $"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n${key.Length}\r\n{key}\r\n")
                {
                    Log.Append("  evicted -> ").Append(reply[0] == '>' ? "push" : "message").Append(" of one of ")
                       .AppendLine(string.Join(',', candidates));
                    return;
                }
            }
            Record("  evicted?", reply, maskIds: true);
        }

        /// <summary>No message may be waiting.</summary>
        public void None(RespClient c) => Record("  none?", c.TryReadReply(300) ?? "none", maskIds: false);

        private void Record(string what, string reply, bool maskIds)
        {
            if (maskIds)
                foreach (var (id, name) in _ids) reply = Regex.Replace(reply, $@"(?<=:){id}(?=\r\n)", name);
            Log.Append(what).Append(" -> ").AppendLine(Differential.Show(reply));
        }

        public void Dispose()
        {
            foreach (var c in _clients) c.Dispose();
        }
    }

    internal static void AssertSameTranscript(Action<Transcript> scenario, params string[] extraArgs)
    {
        using var reference = ReferenceRedis.StartOrNull(string.Join(' ', extraArgs)) ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        var server = TestServer.Start(2, extraArgs);
        try
        {
            string theirs, ours;
            using (var t = new Transcript(reference.Connect))
            {
                scenario(t);
                theirs = t.Log.ToString();
            }
            using (var t = new Transcript(server.Connect))
            {
                scenario(t);
                ours = t.Log.ToString();
            }
            Assert.Equal(theirs, ours);
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    [RedisFact]
    public void Tracking_DefaultModeResp3_InvalidatesKeysReadOnceTheyChange()
    {
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var b = t.Connect();
            t.Call(a, "CLIENT", "TRACKING", "on");
            t.Call(a, "GET", "k1");
            t.Call(a, "MGET", "k2", "k3", "k4");
            t.Call(b, "SET", "k1", "v");
            t.Push(a);
            t.Call(b, "MSET", "k2", "x", "k3", "y");
            t.Push(a);
            t.Push(a);
            t.Call(b, "SET", "k1", "again"); // no longer remembered: nothing
            t.None(a);
            // The client's own write: the invalidation follows the reply.
            t.Call(a, "GET", "k1");
            t.Call(a, "SET", "k1", "z");
            t.Push(a);
            // Read inside a script: remembered for the caller.
            t.Call(a, "EVAL", "return redis.call('get', KEYS[1])", "1", "s1");
            t.Call(b, "EVAL", "redis.call('set', KEYS[1], 'x') return 1", "1", "s1");
            t.Push(a);
            // A transaction's invalidations follow EXEC's reply.
            t.Call(a, "GET", "m1");
            t.Call(a, "GET", "m2");
            t.Call(a, "MULTI");
            t.Call(a, "SET", "m1", "1");
            t.Call(a, "SET", "m2", "2");
            t.Call(a, "EXEC");
            t.Push(a);
            t.Push(a);
            // A write that fails changes nothing.
            t.Call(a, "GET", "k4");
            t.Call(b, "LPUSH", "k1", "x");
            t.None(a);
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "GETREDIR");
            // FLUSHDB and FLUSHALL: a null invalidation for every tracking client.
            t.Call(b, "FLUSHDB");
            t.Push(a);
            t.Call(a, "FLUSHALL");
            t.Push(a);
            // Expiry invalidates too.
            t.Call(b, "SET", "e", "v", "PX", "50");
            t.Call(a, "GET", "e");
            t.Push(a);
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(b, "SET", "k4", "1");
            t.None(a);
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "GETREDIR");
        });
    }

    [RedisFact]
    public void Tracking_Resp2Redirect_SendsMessagesOnTheInvalidateChannel()
    {
        AssertSameTranscript(t =>
        {
            var r = t.Connect();
            var a = t.Connect();
            var b = t.Connect();
            string rid = t.Id(r, "R");
            t.Call(r, "SUBSCRIBE", "__redis__:invalidate");
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT", rid);
            t.Call(a, "CLIENT", "GETREDIR");
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "GET", "k");
            t.Call(b, "SET", "k", "v");
            t.Push(r);
            t.Call(a, "GET", "k");
            t.Call(a, "DEL", "k");
            t.Push(r);
            t.Call(b, "FLUSHALL");
            t.Push(r);
            t.None(a);
            // The redirect target goes: the redirection is broken, and a RESP2 client cannot be told.
            t.Close(r, rid, b);
            t.Call(a, "GET", "k");
            t.Call(b, "SET", "k", "w");
            t.None(a);
            t.Call(a, "CLIENT", "TRACKINGINFO");
            // A RESP3 client whose target is gone gets tracking-redir-broken.
            var c = t.Connect(3);
            var d = t.Connect();
            string did = t.Id(d, "D");
            t.Call(c, "CLIENT", "TRACKING", "on", "REDIRECT", did);
            t.Call(c, "GET", "q");
            t.Close(d, did, b);
            t.Call(b, "SET", "q", "1");
            t.Push(c);
            t.Call(c, "CLIENT", "TRACKINGINFO");
        });
    }

    [RedisFact]
    public void Tracking_BcastOptInOptOutNoLoop_AsRedis()
    {
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var b = t.Connect();
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "b:", "PREFIX", "a:");
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(b, "MSET", "a:2", "1", "b:1", "2", "c:1", "3", "a:1", "4");
            t.Push(a);
            t.Push(a);
            t.Call(b, "SET", "c:2", "1");
            t.None(a);
            t.Call(a, "SET", "a:3", "1");
            t.Push(a);
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "c:");
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "TRACKING", "off");

            // BCAST with no prefix: every key; NOLOOP leaves out the client's own changes.
            var n = t.Connect(3);
            t.Call(n, "CLIENT", "TRACKING", "on", "BCAST", "NOLOOP");
            t.Call(n, "SET", "x", "1");
            t.None(n);
            t.Call(b, "SET", "x", "2");
            t.Push(n);
            t.Call(n, "CLIENT", "TRACKING", "off");

            // NOLOOP in default mode.
            t.Call(n, "CLIENT", "TRACKING", "on", "NOLOOP");
            t.Call(n, "GET", "x");
            t.Call(n, "SET", "x", "3");
            t.None(n);
            t.Call(n, "GET", "x");
            t.Call(b, "SET", "x", "4");
            t.Push(n);

            // OPTIN: only reads after CLIENT CACHING YES, for one command.
            var i = t.Connect(3);
            t.Call(i, "CLIENT", "TRACKING", "on", "OPTIN");
            t.Call(i, "GET", "o1");
            t.Call(i, "CLIENT", "CACHING", "yes");
            t.Call(i, "CLIENT", "TRACKINGINFO");
            t.Call(i, "GET", "o2");
            t.Call(i, "GET", "o3");
            t.Call(b, "MSET", "o1", "1", "o2", "2", "o3", "3");
            t.Push(i);
            t.None(i);

            // OPTOUT: every read but those after CLIENT CACHING NO.
            var o = t.Connect(3);
            t.Call(o, "CLIENT", "TRACKING", "on", "OPTOUT");
            t.Call(o, "GET", "p1");
            t.Call(o, "CLIENT", "CACHING", "no");
            t.Call(o, "CLIENT", "TRACKINGINFO");
            t.Call(o, "GET", "p2");
            t.Call(o, "GET", "p3");
            t.Call(b, "MSET", "p1", "1", "p2", "2", "p3", "3");
            t.Push(o);
            t.Push(o);
            t.None(o);
        });
    }

    [RedisFact]
    public void Tracking_OptionErrors_AsRedis()
    {
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var other = t.Connect();
            string oid = t.Id(other, "O");
            t.Call(a, "CLIENT", "TRACKING", "on", "PREFIX", "a");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "OPTIN");
            t.Call(a, "CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT");
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT", "999999");
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT", "0");
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT", "abc");
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT", oid, "REDIRECT", oid);
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT");
            t.Call(a, "CLIENT", "TRACKING", "maybe");
            t.Call(a, "CLIENT", "TRACKING", "maybe", "FOO");
            t.Call(a, "CLIENT", "TRACKING", "on", "FOO");
            t.Call(a, "CLIENT", "TRACKING");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "a");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "abc");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "abcd");
            t.Call(a, "CLIENT", "TRACKING", "on");
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(a, "CLIENT", "TRACKING", "on", "OPTIN");
            t.Call(a, "CLIENT", "TRACKING", "on", "OPTOUT");
            t.Call(a, "CLIENT", "CACHING", "no");
            t.Call(a, "CLIENT", "CACHING", "maybe");
            t.Call(a, "CLIENT", "CACHING", "yes");
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "TRACKING", "on", "NOLOOP", "OPTIN");
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(a, "CLIENT", "TRACKING", "on", "OPTOUT");
            t.Call(a, "CLIENT", "CACHING", "yes");
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(a, "CLIENT", "CACHING", "yes");
            t.Call(a, "CLIENT", "CACHING");
            t.Call(a, "CLIENT", "TRACKINGINFO");
            a.Call("HELLO", "2"); // its reply shows the server's version and the client's id
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "REDIRECT", oid);
            t.Call(a, "CLIENT", "TRACKINGINFO");
            t.Call(a, "CLIENT", "GETREDIR");
            t.Call(a, "RESET");
            t.Call(a, "CLIENT", "TRACKINGINFO");
        });
    }

    [RedisFact]
    public void Info_TrackingFields_CountClientsKeysItemsAndPrefixes()
    {
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var b = t.Connect(3);
            var c = t.Connect(3);
            t.Call(a, "CLIENT", "TRACKING", "on");
            t.Call(b, "CLIENT", "TRACKING", "on");
            t.Call(c, "CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p", "PREFIX", "q");
            t.Call(a, "MGET", "k1", "k2");
            t.Call(b, "GET", "k1");
            Info(t, a);
            t.Call(c, "SET", "k1", "v");
            t.Push(a);
            t.Push(b);
            Info(t, a);
            t.Call(b, "CLIENT", "TRACKING", "off");
            t.Call(c, "CLIENT", "TRACKING", "off");
            Info(t, a);
            ListFields(t, a);
            t.Call(b, "CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", t.Id(c, "C"));
            ListFields(t, b);
        });

        static void ListFields(Transcript t, RespClient c)
        {
            var line = c.Call("CLIENT", "INFO");
            t.Log.AppendLine(string.Join(" ", line.Split(' ').Where(f => f.StartsWith("flags=") || f.StartsWith("redir=")
                ? true : false).Select(f => f.StartsWith("redir=") ? "redir=" + (f == "redir=-1" || f == "redir=0" ? f[6..] : "id") : f)));
        }

        static void Info(Transcript t, RespClient c)
        {
            var info = c.Call("INFO", "everything");
            var lines = info.Split("\r\n").Where(l => l.StartsWith("tracking_"));
            t.Log.AppendLine(string.Join(" ", lines));
        }
    }

    /// <summary>
    /// Over tracking-table-max-keys, the next command first invalidates keys until the table is back
    /// under the limit (which key is Redis's random pick, so only the shape is compared), and the
    /// message arrives before that command's reply.
    /// </summary>
    [RedisFact]
    public void Tracking_OverMaxKeys_NextCommandInvalidatesFirst()
    {
        using var servers = new PairedServers();
        Check(servers.ConnectTheirs);
        Check(servers.ConnectOurs);

        static void Check(Func<RespClient> connect)
        {
            using var a = connect();
            a.Call("HELLO", "3");
            Assert.Equal("+OK\r\n", a.Call("CONFIG", "SET", "tracking-table-max-keys", "2"));
            Assert.Equal("+OK\r\n", a.Call("CLIENT", "TRACKING", "on"));
            a.Call("MGET", "mk1", "mk2", "mk3");
            Assert.Matches(@"^>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$3\r\nmk[123]\r\n$", a.Call("PING"));
            Assert.Equal("+PONG\r\n", a.ReadReply());
            Assert.Contains("tracking_total_keys:2\r\n", a.Call("INFO", "stats"));
            Assert.Equal("+OK\r\n", a.Call("CONFIG", "SET", "tracking-table-max-keys", "0"));
            a.Call("MGET", "mk4", "mk5");
            Assert.Equal("+PONG\r\n", a.Call("PING"));
        }
    }
}
