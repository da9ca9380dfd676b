using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// ITransaction with conditions, as StackExchange.Redis runs them (WATCH, a check per condition,
/// then MULTI/EXEC or UNWATCH): every kind of condition, held and not held, on redis-server and on
/// RedisClone; and a write slipped in by another client between the checks and EXEC, which must
/// abort the transaction on both.
/// </summary>
[Collection(StackExchangePair.Collection)]
public sealed class StackExchangeTransactionTests(StackExchangePair pair)
{
    private readonly string _p = TestServer.KeyPrefix("se-tx");

    /// <summary>The data every condition below is checked against.</summary>
    private async Task Setup()
    {
        await pair.Same(db => db.StringSetAsync(_p + "str", "hello"));
        await pair.Same(db => db.HashSetAsync(_p + "hash", [new HashEntry("f", "v"), new HashEntry("g", "w")]));
        await pair.Same(db => db.ListRightPushAsync(_p + "list", ["a", "b", "c"]));
        await pair.Same(db => db.SetAddAsync(_p + "set", ["m", "n"]));
        await pair.Same(db => db.SortedSetAddAsync(_p + "zset", [new SortedSetEntry("apple", 1), new SortedSetEntry("avocado", 2), new SortedSetEntry("berry", 2)]));
        await pair.Same(db => db.StreamAddAsync(_p + "stream", "f", "v", "1-1"));
        await pair.Same(db => db.StreamAddAsync(_p + "stream", "f", "v", "1-2"));
    }

    /// <summary>Each condition as a pair: one that holds on the data above and one that does not.</summary>
    private IEnumerable<(string Name, Func<Condition> Holds, Func<Condition> Fails)> Conditions()
    {
        string s = _p + "str", h = _p + "hash", l = _p + "list", st = _p + "set", z = _p + "zset", x = _p + "stream", none = _p + "none";
        yield return ("KeyExists", () => Condition.KeyExists(s), () => Condition.KeyExists(none));
        yield return ("KeyNotExists", () => Condition.KeyNotExists(none), () => Condition.KeyNotExists(h));
        yield return ("StringEqual", () => Condition.StringEqual(s, "hello"), () => Condition.StringEqual(s, "bye"));
        yield return ("StringEqual missing", () => Condition.StringEqual(none, RedisValue.Null), () => Condition.StringEqual(none, "x"));
        yield return ("StringNotEqual", () => Condition.StringNotEqual(s, "bye"), () => Condition.StringNotEqual(s, "hello"));
        yield return ("StringLengthEqual", () => Condition.StringLengthEqual(s, 5), () => Condition.StringLengthEqual(s, 4));
        yield return ("StringLengthGreaterThan", () => Condition.StringLengthGreaterThan(s, 4), () => Condition.StringLengthGreaterThan(s, 5));
        yield return ("StringLengthLessThan", () => Condition.StringLengthLessThan(s, 6), () => Condition.StringLengthLessThan(s, 5));
        yield return ("HashEqual", () => Condition.HashEqual(h, "f", "v"), () => Condition.HashEqual(h, "f", "other"));
        yield return ("HashNotEqual", () => Condition.HashNotEqual(h, "f", "other"), () => Condition.HashNotEqual(h, "f", "v"));
        yield return ("HashExists", () => Condition.HashExists(h, "g"), () => Condition.HashExists(h, "nope"));
        yield return ("HashNotExists", () => Condition.HashNotExists(h, "nope"), () => Condition.HashNotExists(h, "g"));
        yield return ("HashLengthEqual", () => Condition.HashLengthEqual(h, 2), () => Condition.HashLengthEqual(h, 3));
        yield return ("HashLengthGreaterThan", () => Condition.HashLengthGreaterThan(h, 1), () => Condition.HashLengthGreaterThan(h, 2));
        yield return ("HashLengthLessThan", () => Condition.HashLengthLessThan(h, 3), () => Condition.HashLengthLessThan(none, 0));
        yield return ("ListIndexEqual", () => Condition.ListIndexEqual(l, 1, "b"), () => Condition.ListIndexEqual(l, -1, "a"));
        yield return ("ListIndexNotEqual", () => Condition.ListIndexNotEqual(l, 0, "z"), () => Condition.ListIndexNotEqual(l, 2, "c"));
        yield return ("ListIndexExists", () => Condition.ListIndexExists(l, -3), () => Condition.ListIndexExists(l, 3));
        yield return ("ListIndexNotExists", () => Condition.ListIndexNotExists(l, 10), () => Condition.ListIndexNotExists(l, 0));
        yield return ("ListLengthEqual", () => Condition.ListLengthEqual(l, 3), () => Condition.ListLengthEqual(l, 2));
        yield return ("ListLengthGreaterThan", () => Condition.ListLengthGreaterThan(l, 2), () => Condition.ListLengthGreaterThan(l, 3));
        yield return ("ListLengthLessThan", () => Condition.ListLengthLessThan(l, 4), () => Condition.ListLengthLessThan(l, 3));
        yield return ("SetContains", () => Condition.SetContains(st, "m"), () => Condition.SetContains(st, "q"));
        yield return ("SetNotContains", () => Condition.SetNotContains(st, "q"), () => Condition.SetNotContains(st, "n"));
        yield return ("SetLengthEqual", () => Condition.SetLengthEqual(st, 2), () => Condition.SetLengthEqual(st, 0));
        yield return ("SetLengthGreaterThan", () => Condition.SetLengthGreaterThan(st, 1), () => Condition.SetLengthGreaterThan(none, 0));
        yield return ("SetLengthLessThan", () => Condition.SetLengthLessThan(st, 3), () => Condition.SetLengthLessThan(st, 2));
        yield return ("SortedSetEqual", () => Condition.SortedSetEqual(z, "avocado", 2), () => Condition.SortedSetEqual(z, "avocado", 3));
        yield return ("SortedSetNotEqual", () => Condition.SortedSetNotEqual(z, "apple", 5), () => Condition.SortedSetNotEqual(z, "apple", 1));
        yield return ("SortedSetContains", () => Condition.SortedSetContains(z, "berry"), () => Condition.SortedSetContains(z, "cherry"));
        yield return ("SortedSetNotContains", () => Condition.SortedSetNotContains(z, "cherry"), () => Condition.SortedSetNotContains(z, "berry"));
        yield return ("SortedSetContainsStarting", () => Condition.SortedSetContainsStarting(z, "av"), () => Condition.SortedSetContainsStarting(z, "ch"));
        yield return ("SortedSetNotContainsStarting", () => Condition.SortedSetNotContainsStarting(z, "ch"), () => Condition.SortedSetNotContainsStarting(z, "b"));
        yield return ("SortedSetScoreExists", () => Condition.SortedSetScoreExists(z, 2), () => Condition.SortedSetScoreExists(z, 3));
        yield return ("SortedSetScoreExists count", () => Condition.SortedSetScoreExists(z, 2, 2), () => Condition.SortedSetScoreExists(z, 1, 2));
        yield return ("SortedSetScoreNotExists", () => Condition.SortedSetScoreNotExists(z, 7), () => Condition.SortedSetScoreNotExists(z, 1));
        yield return ("SortedSetScoreNotExists count", () => Condition.SortedSetScoreNotExists(z, 2, 1), () => Condition.SortedSetScoreNotExists(z, 2, 2));
        yield return ("SortedSetLengthEqual", () => Condition.SortedSetLengthEqual(z, 3), () => Condition.SortedSetLengthEqual(z, 2));
        yield return ("SortedSetLengthEqual range", () => Condition.SortedSetLengthEqual(z, 2, 2, 2), () => Condition.SortedSetLengthEqual(z, 3, 1, 1.5));
        yield return ("SortedSetLengthGreaterThan", () => Condition.SortedSetLengthGreaterThan(z, 2), () => Condition.SortedSetLengthGreaterThan(z, 1, 3, 10));
        yield return ("SortedSetLengthLessThan", () => Condition.SortedSetLengthLessThan(z, 1, 5, 9), () => Condition.SortedSetLengthLessThan(z, 3));
        yield return ("StreamLengthEqual", () => Condition.StreamLengthEqual(x, 2), () => Condition.StreamLengthEqual(x, 1));
        yield return ("StreamLengthGreaterThan", () => Condition.StreamLengthGreaterThan(x, 1), () => Condition.StreamLengthGreaterThan(x, 2));
        yield return ("StreamLengthLessThan", () => Condition.StreamLengthLessThan(x, 3), () => Condition.StreamLengthLessThan(none, 0));
    }

    [RedisFact]
    public async Task Transaction_EveryCondition_CommitsWhenHeldAbortsWhenNot()
    {
        await Setup();
        string counter = _p + "counter";
        foreach (var (name, holds, fails) in Conditions())
        {
            foreach (var (condition, expected) in new[] { (holds, true), (fails, false) })
            {
                string outcome = await pair.SameOn(async s =>
                {
                    var tx = s.Db.CreateTransaction();
                    var check = tx.AddCondition(condition());
                    var incremented = tx.StringIncrementAsync(counter);
                    var pushed = tx.ListRightPushAsync(_p + "log", name);
                    bool committed = await tx.ExecuteAsync();
                    return new
                    {
                        committed, check.WasSatisfied,
                        Increment = incremented.IsCanceled ? "cancelled" : (await incremented).ToString(),
                        Push = pushed.IsCanceled ? "cancelled" : (await pushed).ToString(),
                        Counter = (string?)await s.Db.StringGetAsync(counter),
                    };
                }, name + (expected ? " (held)" : " (not held)"));
                Assert.StartsWith("{committed=" + expected, outcome);
            }
        }
        await pair.Same(db => db.ListRangeAsync(_p + "log"));
    }

    [RedisFact]
    public async Task Transaction_SeveralConditions_AllMustHold()
    {
        await Setup();
        await pair.SameOn(async s =>
        {
            var results = new List<object>();
            foreach (bool breakOne in new[] { false, true })
            {
                var tx = s.Db.CreateTransaction();
                var a = tx.AddCondition(Condition.KeyExists(_p + "str"));
                var b = tx.AddCondition(Condition.HashEqual(_p + "hash", "f", breakOne ? "no" : "v"));
                var c = tx.AddCondition(Condition.SortedSetContains(_p + "zset", "apple"));
                var set = tx.StringSetAsync(_p + "multi", breakOne ? "second" : "first");
                results.Add(new { Committed = await tx.ExecuteAsync(), a.WasSatisfied, B = b.WasSatisfied, C = c.WasSatisfied, Value = (string?)await s.Db.StringGetAsync(_p + "multi") });
            }
            return results;
        });
    }

    [RedisFact]
    public async Task Transaction_CommandFailingInsideExec_OthersStillApplied()
    {
        await Setup();
        await pair.SameOn(async s =>
        {
            var tx = s.Db.CreateTransaction();
            tx.AddCondition(Condition.KeyExists(_p + "str"));
            var wrong = tx.ListRightPushAsync(_p + "str", "x"); // WRONGTYPE, inside EXEC
            var right = tx.StringAppendAsync(_p + "str", " world");
            bool committed = await tx.ExecuteAsync();
            string wrongOutcome;
            try
            {
                wrongOutcome = (await wrong).ToString();
            }
            catch (RedisServerException e)
            {
                wrongOutcome = e.Message;
            }
            return new { committed, wrongOutcome, Right = await right, Value = (string?)await s.Db.StringGetAsync(_p + "str") };
        });
    }

    [RedisFact]
    public async Task Transaction_WriteBetweenWatchAndExec_Aborts()
    {
        await Setup();
        string outcome = await pair.SameOn(async s =>
        {
            using var relay = new BeforeMultiRelay(s.Port);
            using var mux = StackExchangeConnections.Connect(relay.Port);
            var db = mux.GetDatabase();
            var outcomes = new List<object>();
            // A write to the watched key by another client, after the checks passed, before MULTI.
            foreach (string interloper in new[] { "watched", "unrelated" })
            {
                relay.BeforeNextMulti(() =>
                {
                    using var other = s.Raw();
                    other.Call("SET", interloper == "watched" ? _p + "balance" : _p + "elsewhere", "999");
                    return Task.CompletedTask;
                });
                await s.Db.StringSetAsync(_p + "balance", "100");
                var tx = db.CreateTransaction();
                var check = tx.AddCondition(Condition.StringEqual(_p + "balance", "100"));
                var debit = tx.StringDecrementAsync(_p + "balance", 30);
                bool committed = await tx.ExecuteAsync();
                outcomes.Add(new { interloper, committed, check.WasSatisfied, Debit = debit.IsCanceled ? "cancelled" : (await debit).ToString(), Balance = (string?)await s.Db.StringGetAsync(_p + "balance") });
            }
            return outcomes;
        });
        Assert.True(outcome.Contains("interloper='watched', committed=False, WasSatisfied=True, Debit='cancelled', Balance='999'"), outcome);
        Assert.True(outcome.Contains("interloper='unrelated', committed=True, WasSatisfied=True, Debit='70', Balance='70'"), outcome);
    }

    [RedisFact]
    public async Task Transaction_WithoutConditions_AndAnEmptyOne_SameAsRedis()
    {
        await pair.SameOn(async s =>
        {
            var tx = s.Db.CreateTransaction();
            var a = tx.StringSetAsync(_p + "plain", "1");
            var b = tx.StringIncrementAsync(_p + "plain", 2);
            var c = tx.KeyExpireAsync(_p + "plain", TimeSpan.FromSeconds(100));
            bool committed = await tx.ExecuteAsync();
            var empty = s.Db.CreateTransaction();
            bool emptyCommitted = await empty.ExecuteAsync();
            return new { committed, A = await a, B = await b, C = await c, emptyCommitted };
        });
    }
}
