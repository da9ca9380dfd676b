using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.PubSub;

/// <summary>SUBSCRIBE/PUBLISH delivery, RESP2 subscribe mode, RESP3 pushes, slow subscribers.</summary>
public class PubSubTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void Publish_ToSubscribersAndPatterns_DeliversInOrderAndCountsReceivers()
    {
        var ch = TestServer.KeyPrefix("ch") + "news";
        using var sub = Server.Connect();
        using var psub = Server.Connect();
        using var pub = Server.Connect();
        Assert.Equal($"*3\r\n$9\r\nsubscribe\r\n${ch.Length}\r\n{ch}\r\n:1\r\n", sub.Call("SUBSCRIBE", ch));
        var pattern = ch.Substring(0, ch.Length - 4) + "*";
        Assert.Equal($"*3\r\n$10\r\npsubscribe\r\n${pattern.Length}\r\n{pattern}\r\n:1\r\n", psub.Call("PSUBSCRIBE", pattern));

        for (int i = 0; i < 50; i++) Assert.Equal(":2\r\n", pub.Call("PUBLISH", ch, "m" + i));
        for (int i = 0; i < 50; i++)
        {
            string m = "m" + i;
            Assert.Equal($"*3\r\n$7\r\nmessage\r\n${ch.Length}\r\n{ch}\r\n${m.Length}\r\n{m}\r\n", sub.ReadReply());
            Assert.Equal($"*4\r\n$8\r\npmessage\r\n${pattern.Length}\r\n{pattern}\r\n${ch.Length}\r\n{ch}\r\n${m.Length}\r\n{m}\r\n", psub.ReadReply());
        }
        Assert.Equal(":0\r\n", pub.Call("PUBLISH", "nobody-" + ch, "x"));
    }

    [Fact]
    public void Publish_SmallAndLargeMessagesInTurn_ArriveWhole()
    {
        // Messages are encoded in a scratch buffer up to 16 KB and in one of their own above that:
        // alternate the two (to a channel and a pattern subscriber, RESP2 and RESP3) and compare bytes.
        var ch = TestServer.KeyPrefix("ch") + "sizes";
        using var sub = Server.Connect();
        using var psub = Server.Connect();
        using var pub = Server.Connect();
        psub.Call("HELLO", "3");
        sub.Call("SUBSCRIBE", ch);
        var pattern = ch + "*";
        psub.Call("PSUBSCRIBE", pattern);
        int[] sizes = [10, 100_000, 16 * 1024 - 64, 16 * 1024, 3, 40_000, 0];
        foreach (int size in sizes)
        {
            string m = new string((char)('a' + size % 26), size);
            Assert.Equal(":2\r\n", pub.Call("PUBLISH", ch, m));
            Assert.Equal($"*3\r\n$7\r\nmessage\r\n${ch.Length}\r\n{ch}\r\n${size}\r\n{m}\r\n", sub.ReadReply());
            Assert.Equal($">4\r\n$8\r\npmessage\r\n${pattern.Length}\r\n{pattern}\r\n${ch.Length}\r\n{ch}\r\n${size}\r\n{m}\r\n", psub.ReadReply());
        }
    }

    [Fact]
    public void SubscribeMode_Resp2_OnlyAllowsSubscribeCommandsPingQuitReset()
    {
        using var c = Server.Connect();
        c.Call("SUBSCRIBE", "only-mode");
        Assert.Equal("-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n",
            c.Call("GET", "k"));
        Assert.Equal("*2\r\n$4\r\npong\r\n$0\r\n\r\n", c.Call("PING"));
        Assert.Equal("*3\r\n$11\r\nunsubscribe\r\n$9\r\nonly-mode\r\n:0\r\n", c.Call("UNSUBSCRIBE"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Resp3_PushesMixWithReplies()
    {
        using var c = Server.Connect();
        using var pub = Server.Connect();
        c.Call("HELLO", "3");
        Assert.Equal("&3\r\n$9\r\nsubscribe\r\n$2\r\nr3\r\n:1\r\n".Replace("&", ">"), c.Call("SUBSCRIBE", "r3"));
        Assert.Equal("_\r\n", c.Call("GET", TestServer.KeyPrefix("r3") + "missing"));
        Assert.Equal(":1\r\n", pub.Call("PUBLISH", "r3", "hi"));
        Assert.Equal(">3\r\n$7\r\nmessage\r\n$2\r\nr3\r\n$2\r\nhi\r\n", c.ReadReply());
    }

    [Fact]
    public void Resp3_PublishToItself_MessagesRightAfterItsReply()
    {
        // Redis 7.2 holds a push to the client executing the command until its reply is written
        // (7.2.6 src/networking.c _addReplyToBufferOrList; 7.0 wrote it before the reply): each
        // PUBLISH's reply, then its own messages (channel first, then pattern), then the next reply.
        // Inside EXEC they follow the whole transaction's reply.
        using var c = Server.Connect();
        string ch = TestServer.KeyPrefix("self");
        c.Call("HELLO", "3");
        c.Call("SUBSCRIBE", ch);
        c.Call("PSUBSCRIBE", ch + "*");
        c.SendRaw(RespClient.Encode("PUBLISH", ch, "first").Concat(RespClient.Encode("PUBLISH", ch, "second"))
            .Concat(RespClient.Encode("PING")).ToArray());
        string Message(string text) => $">3\r\n$7\r\nmessage\r\n${ch.Length}\r\n{ch}\r\n${text.Length}\r\n{text}\r\n";
        string PMessage(string text) => $">4\r\n$8\r\npmessage\r\n${ch.Length + 1}\r\n{ch}*\r\n${ch.Length}\r\n{ch}\r\n${text.Length}\r\n{text}\r\n";
        string[] expected = [":2\r\n", Message("first"), PMessage("first"), ":2\r\n", Message("second"), PMessage("second"), "+PONG\r\n"];
        Assert.Equal(expected, expected.Select(_ => c.ReadReply()).ToArray());
        c.Call("MULTI");
        c.Call("PUBLISH", ch, "in-exec");
        Assert.Equal("*1\r\n:2\r\n", c.Call("EXEC"));
        Assert.Equal(Message("in-exec"), c.ReadReply());
        Assert.Equal(PMessage("in-exec"), c.ReadReply());
    }

    [Fact]
    public async Task PubSubIntrospection_CountsChannelsPatternsAndShardChannels()
    {
        var server = TestServer.Start(shards: 2);
        try
        {
            using var a = server.Connect();
            using var b = server.Connect();
            using var q = server.Connect();
            a.Call("SUBSCRIBE", "x1", "x2");
            b.Call("SUBSCRIBE", "x1");
            b.Call("PSUBSCRIBE", "x*");
            b.Call("SSUBSCRIBE", "s1");
            Assert.Equal("*4\r\n$2\r\nx1\r\n:2\r\n$2\r\nzz\r\n:0\r\n", q.Call("PUBSUB", "NUMSUB", "x1", "zz"));
            Assert.Equal(":1\r\n", q.Call("PUBSUB", "NUMPAT"));
            Assert.Equal("*1\r\n$2\r\ns1\r\n", q.Call("PUBSUB", "SHARDCHANNELS"));
            Assert.Equal("*2\r\n$2\r\ns1\r\n:1\r\n", q.Call("PUBSUB", "SHARDNUMSUB", "s1"));
            Assert.Equal(":1\r\n", q.Call("SPUBLISH", "s1", "hi"));
            Assert.Equal("*3\r\n$8\r\nsmessage\r\n$2\r\ns1\r\n$2\r\nhi\r\n", b.ReadReply());
            var channels = q.Call("PUBSUB", "CHANNELS");
            Assert.StartsWith("*2\r\n", channels);
            a.Dispose();
            // Gone once the server has noticed the close (a moment later; later on a loaded machine).
            Eventually.Wait(() => q.Call("PUBSUB", "NUMSUB", "x2") == "*2\r\n$2\r\nx2\r\n:0\r\n",
                () => q.Call("PUBSUB", "NUMSUB", "x2"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task SubscribersDroppedByTheirLimitDuringAPublish_PublishStillAnswers_OthersUnharmed()
    {
        // Each subscriber passes its limit inside PUBLISH's delivery loop and is disconnected; the
        // disconnect must not run the subscriber's clean-up on the publisher's thread in the middle
        // of that loop (it once made PUBLISH answer "Collection was modified").
        var server = TestServer.Start(2, "--client-output-buffer-limit", "pubsub", "100", "0", "0");
        try
        {
            var subscribers = Enumerable.Range(0, 3).Select(_ => server.Connect()).ToList();
            foreach (var s in subscribers) Assert.StartsWith("*3\r\n$9\r\nsubscribe", s.Call("SUBSCRIBE", "ch"));
            using var pub = server.Connect();
            Assert.Matches(@"^:\d+\r\n$", pub.Call("PUBLISH", "ch", new string('x', 200)));
            Assert.Equal("+PONG\r\n", pub.Call("PING"));
            using var other = server.Connect();
            Assert.Equal("+OK\r\n", other.Call("SET", "k", "v"));
            foreach (var s in subscribers) s.Dispose();
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task SubscriberThatNeverReads_IsDisconnectedAtPubSubLimit()
    {
        var server = TestServer.Start(2, "--client-output-buffer-limit", "pubsub", "2mb", "1mb", "60");
        try
        {
            using var slow = server.Connect();
            using var pub = server.Connect();
            slow.Call("SUBSCRIBE", "flood");
            var payload = new string('p', 16 * 1024);
            int published = 0;
            // 64 MB offered at most; the subscriber must be dropped long before.
            for (; published < 4096; published++)
            {
                var reply = pub.Call("PUBLISH", "flood", payload);
                if (reply == ":0\r\n") break;
            }
            Assert.True(published < 4096, "the non-reading subscriber was never disconnected");
            Assert.Equal("+PONG\r\n", pub.Call("PING"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }
}
