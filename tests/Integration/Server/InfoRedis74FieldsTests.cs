using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// The INFO fields Redis 7.4 added (server.c's genRedisInfoString, 7.4): pubsub_clients,
/// watching_clients and total_watched_keys in Clients; client_query_buffer_limit_disconnections and
/// client_output_buffer_limit_disconnections in Stats (both reset by CONFIG RESETSTAT); and the ones
/// with nothing to count here (allocator_muzzy, mem_overhead_db_hashtable_rehashing, evicted_scripts).
/// redis-server 7.0 has none of them, so these assert 7.4's names, places and meaning.
/// </summary>
public class InfoRedis74FieldsTests
{
    private static Dictionary<string, string> Fields(string reply)
        => reply.Split("\r\n").Where(l => l.Contains(':') && !l.StartsWith('$'))
            .ToDictionary(l => l[..l.IndexOf(':')], l => l[(l.IndexOf(':') + 1)..]);

    private static List<string> Names(string reply)
        => reply.Split("\r\n").Where(l => l.Contains(':') && !l.StartsWith('$')).Select(l => l[..l.IndexOf(':')]).ToList();

    [Fact]
    public async Task InfoClients_PubSubAndWatchingClients_CountedAsRedis74()
    {
        var server = TestServer.Start(2);
        try
        {
            using var observer = server.Connect();
            Assert.Equal(
                ["connected_clients", "cluster_connections", "maxclients", "client_recent_max_input_buffer", "client_recent_max_output_buffer",
                 "blocked_clients", "tracking_clients", "pubsub_clients", "watching_clients", "clients_in_timeout_table",
                 "total_watched_keys", "total_blocking_keys", "total_blocking_keys_on_nokey"],
                Names(observer.Call("INFO", "clients")));
            var f = Fields(observer.Call("INFO", "clients"));
            Assert.Equal(("0", "0", "0"), (f["pubsub_clients"], f["watching_clients"], f["total_watched_keys"]));

            using var sub = server.Connect();
            using var psub = server.Connect();
            using var ssub = server.Connect();
            using var w1 = server.Connect();
            using var w2 = server.Connect();
            sub.Call("SUBSCRIBE", "a", "b");
            psub.Call("PSUBSCRIBE", "p*");
            ssub.Call("SSUBSCRIBE", "s");
            w1.Call("WATCH", "k1", "k2");
            w2.Call("WATCH", "k2", "k3"); // k2 twice: one key
            w2.Call("SELECT", "1");
            w2.Call("WATCH", "k1"); // k1 of another database: another key
            f = Fields(observer.Call("INFO", "clients"));
            Assert.Equal(("3", "2", "4"), (f["pubsub_clients"], f["watching_clients"], f["total_watched_keys"]));

            // Leaving every subscription leaves pub/sub mode; EXEC and UNWATCH drop the watches.
            sub.Call("UNSUBSCRIBE");
            w1.Call("MULTI");
            w1.Call("EXEC");
            f = Fields(observer.Call("INFO", "clients"));
            Assert.Equal(("2", "1", "3"), (f["pubsub_clients"], f["watching_clients"], f["total_watched_keys"]));
            w2.Call("UNWATCH");
            f = Fields(observer.Call("INFO", "clients"));
            Assert.Equal(("2", "0", "0"), (f["pubsub_clients"], f["watching_clients"], f["total_watched_keys"]));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task InfoStats_BufferLimitDisconnections_CountedAndReset()
    {
        var server = TestServer.Start(2, "--client-query-buffer-limit", "1mb", "--client-output-buffer-limit", "pubsub", "100", "0", "0");
        try
        {
            using var observer = server.Connect();
            var f = Fields(observer.Call("INFO", "stats"));
            Assert.Equal(("0", "0"), (f["client_query_buffer_limit_disconnections"], f["client_output_buffer_limit_disconnections"]));
            var names = Names(observer.Call("INFO", "stats"));
            int at = names.IndexOf("io_threaded_writes_processed");
            Assert.Equal(["client_query_buffer_limit_disconnections", "client_output_buffer_limit_disconnections"], names.GetRange(at + 1, 2));
            Assert.Equal("evicted_scripts", names[names.IndexOf("evicted_clients") + 1]);

            // A request over client-query-buffer-limit closes its client: one query-buffer disconnection.
            using (var big = server.Connect())
            {
                big.SendRaw("*2\r\n$3\r\nGET\r\n$3000000\r\n");
                var chunk = new byte[64 * 1024];
                Array.Fill(chunk, (byte)'x');
                try
                {
                    for (int i = 0; i < 20; i++) big.SendRaw(chunk); // 1.25 MB of a 3 MB argument
                }
                catch (System.Net.Sockets.SocketException)
                {
                    // Closed while sending: what this test wants.
                }
                Assert.True(big.IsClosedByServer(), "the client over the query buffer limit was not closed");
            }
            // A subscriber whose pending messages pass the pubsub hard limit: one output-buffer disconnection.
            using (var subscriber = server.Connect())
            {
                subscriber.Call("SUBSCRIBE", "ch");
                observer.Call("PUBLISH", "ch", new string('m', 500));
                Assert.True(subscriber.IsClosedByServer(), "the subscriber over its limit was not closed");
            }
            await Eventually.WaitFor(() =>
                {
                    var now = Fields(observer.Call("INFO", "stats"));
                    return now["client_output_buffer_limit_disconnections"] == "1" && now["client_query_buffer_limit_disconnections"] == "1";
                },
                () => observer.Call("INFO", "stats"));
            f = Fields(observer.Call("INFO", "stats"));
            Assert.Equal(("1", "1"), (f["client_query_buffer_limit_disconnections"], f["client_output_buffer_limit_disconnections"]));

            Assert.Equal("+OK\r\n", observer.Call("CONFIG", "RESETSTAT"));
            f = Fields(observer.Call("INFO", "stats"));
            Assert.Equal(("0", "0"), (f["client_query_buffer_limit_disconnections"], f["client_output_buffer_limit_disconnections"]));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void InfoMemory_Redis74Fields_InRedisPlaces()
    {
        using var c = TestServer.Shared.Connect();
        var names = Names(c.Call("INFO", "memory"));
        Assert.Equal("allocator_muzzy", names[names.IndexOf("allocator_resident") + 1]);
        Assert.Equal("mem_overhead_db_hashtable_rehashing", names[names.IndexOf("mem_allocator") + 1]);
        var f = Fields(c.Call("INFO", "memory"));
        Assert.Matches(new Regex(@"^\d+$"), f["allocator_muzzy"]);
        Assert.Matches(new Regex(@"^\d+$"), f["mem_overhead_db_hashtable_rehashing"]);
    }
}
