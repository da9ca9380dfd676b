using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// LOLWUT: compared with redis-server 7.0 byte for byte where the drawing has no randomness (the
/// version line; Schotter's first two rows of squares), by shape where it has. The reference's
/// version (7.0.x) is replaced by ours in its replies: that line is the only 7.0/7.2 difference.
/// </summary>
public sealed class LolwutTests
{
    private const string ServerVersion = "8.2.0";

    private static string Theirs(RespClient c, params string[] args)
    {
        var reply = c.Call(args);
        var m = Regex.Match(reply, @"Redis ver\. (7\.0\.\d+)");
        if (!m.Success) return reply;
        // The version's length is in the reply's header too.
        int delta = ServerVersion.Length - m.Groups[1].Length;
        int eol = reply.IndexOf("\r\n", StringComparison.Ordinal);
        int length = int.Parse(reply.AsSpan(1, eol - 1)) + delta;
        return reply[0] + length.ToString() + reply[eol..].Replace(m.Groups[1].Value, ServerVersion);
    }

    /// <summary>The reply's text: a bulk string's payload (RESP2).</summary>
    private static string Text(string reply)
    {
        Assert.StartsWith("$", reply);
        int eol = reply.IndexOf("\r\n", StringComparison.Ordinal);
        return reply[(eol + 2)..^2];
    }

    [RedisFact]
    public void Lolwut_DeterministicOutputs_SameBytesAsRedis()
    {
        using var theirs = ReferenceRedis.Shared!.Connect();
        using var ours = TestServer.Shared.Connect();
        string[][] cases =
        [
            ["LOLWUT", "VERSION", "5", "66", "8", "2"],
            ["LOLWUT", "VERSION", "5", "40", "3", "1"],
            ["LOLWUT", "VERSION", "5", "1", "1", "1"],
            ["LOLWUT", "VERSION", "5", "2000", "1", "2"],
            ["LOLWUT", "VERSION", "5", "7", "300", "-4"],
            ["LOLWUT", "VERSION", "4294967301", "10", "2", "2"], // 2^32 + 5: Redis prints it as an unsigned int, 5
            ["LOLWUT", "VERSION", "5", "x"],
            ["LOLWUT", "VERSION", "6", "10", "y"],
            ["LOLWUT", "VERSION", "z"],
            ["LOLWUT", "VERSION", "7"],
            ["LOLWUT", "VERSION", "4"],
            ["LOLWUT", "VERSION", "-1"],
            ["LOLWUT", "VERSION"],
            ["LOLWUT", "foo", "bar"],
        ];
        var failures = new StringBuilder();
        foreach (var args in cases)
        {
            string expected = Theirs(theirs, args), actual = ours.Call(args);
            if (expected != actual)
            {
                int at = 0;
                while (at < Math.Min(expected.Length, actual.Length) && expected[at] == actual[at]) at++;
                failures.AppendLine($"{string.Join(' ', args)}: first difference at {at} of {expected.Length}/{actual.Length}\n  redis: {Differential.Show(expected[Math.Max(0, at - 20)..Math.Min(expected.Length, at + 20)])}\n  ours:  {Differential.Show(actual[Math.Max(0, at - 20)..Math.Min(actual.Length, at + 20)])}");
            }
        }
        Assert.True(failures.Length == 0, failures.ToString());
    }

    [RedisFact]
    public void Lolwut_Default_IsTheVersionLineInResp2AndResp3()
    {
        using var theirs = ReferenceRedis.Shared!.Connect();
        using var ours = TestServer.Shared.Connect();
        Assert.Equal(Theirs(theirs, "LOLWUT"), ours.Call("LOLWUT"));
        Assert.Equal("$17\r\nRedis ver. 8.2.0\n\r\n", ours.Call("LOLWUT"));
        theirs.Call("HELLO", "3");
        ours.Call("HELLO", "3");
        Assert.Equal(Theirs(theirs, "LOLWUT"), ours.Call("LOLWUT"));
        theirs.Call("HELLO", "2");
        ours.Call("HELLO", "2");
    }

    /// <summary>Schotter's lower rows and the whole skyline are random: their size, characters and closing lines are Redis's.</summary>
    [RedisFact]
    public void Lolwut_RandomDrawings_HaveRedisShape()
    {
        using var theirs = ReferenceRedis.Shared!.Connect();
        using var ours = TestServer.Shared.Connect();
        foreach (var args in new[] { new[] { "LOLWUT", "VERSION", "5" }, ["LOLWUT", "VERSION", "5", "30", "4", "9"] })
        {
            var (t, o) = (Text(Theirs(theirs, args)).Split('\n'), Text(ours.Call(args)).Split('\n'));
            Assert.Equal(t.Length, o.Length);
            Assert.Equal(t[^2..], o[^2..]);
            for (int i = 0; i < t.Length - 2; i++)
            {
                Assert.Equal(Encoding.Latin1.GetBytes(t[i]).Length, Encoding.Latin1.GetBytes(o[i]).Length);
                Assert.Matches("^(\u00e2[\u00a0-\u00a3][\u0080-\u00bf])*$", o[i]); // UTF-8 Braille, U+2800..U+28FF, read as Latin-1
            }
        }
        foreach (var args in new[] { new[] { "LOLWUT", "VERSION", "6" }, ["LOLWUT", "VERSION", "6", "33", "7"] })
        {
            var (t, o) = (Text(Theirs(theirs, args)).Split('\n'), Text(ours.Call(args)).Split('\n'));
            Assert.Equal(t.Length, o.Length);
            Assert.Equal(t[^3..], o[^3..]);
            var cell = new Regex("^(\u001b\\[0;(30;40|90;100|37;47|97;107)m \u001b\\[0m)+$");
            for (int i = 0; i < t.Length - 3; i++)
            {
                Assert.Matches(cell, o[i]);
                Assert.Equal(Regex.Matches(t[i], "\u001b\\[0m").Count, Regex.Matches(o[i], "\u001b\\[0m").Count);
            }
        }
    }
}
