using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Execution;

/// <summary>
/// Every write command's propagation, family by family, against redis-server's replication stream:
/// the paths that change something, the paths that change nothing (Redis's dirty counter does not
/// move, so nothing is propagated) and the error paths (nothing either).
/// </summary>
/// <remarks>
/// A token <c>''</c> in a script line is an empty argument. Redis 7.0.15 (the reference) and 7.2.6
/// move their dirty counters alike for every command here, so every scenario is differential.
/// </remarks>
public sealed class PropagationAuditTests
{
    private static void Same(params string[] script)
        => PropagationDifferential.AssertSame(script.Select(Split).ToArray());

    /// <summary>Compares replies (not propagation) with redis-server's.</summary>
    private static void SameReplies(params string[] script)
        => Differential.AssertSame(script.Select(Split).ToArray());

    private static string[] Split(string line)
        => Differential.SplitLine(line).Select(a => a == "''" ? "" : a).ToArray();

    // ---- strings ----

    [RedisFact]
    public void SetRange_ChangesValue_Propagates()
        => Same("SET k hello", "SETRANGE k 0 J", "SETRANGE k 10 x", "SETRANGE new 2 ab");

    [RedisFact]
    public void SetRange_EmptyValue_PropagatesNothing()
        => Same("SET k hello", "SETRANGE k 2 ''", "SETRANGE k 100 ''", "SETRANGE missing 0 ''", "SETRANGE missing 5 ''");

    [RedisFact]
    public void SetRange_Errors_PropagateNothing()
        => Same("LPUSH l a", "SETRANGE l 0 x", "SET k v", "SETRANGE k -1 x", "SETRANGE k 536870912 x");

    [RedisFact]
    public void Append_AnyValue_Propagates()
        => Same("SET k v", "APPEND k w", "APPEND k ''", "APPEND new ''", "APPEND new2 x");

    [RedisFact]
    public void Append_WrongType_PropagatesNothing()
        => Same("LPUSH l a", "APPEND l x");

    [RedisFact]
    public void MSet_Always_Propagates()
        => Same("MSET a 1 b 2", "MSET a 1");

    [RedisFact]
    public void MSetNx_ExistingKey_PropagatesNothing()
        => Same("MSETNX a 1 b 2", "MSETNX b 3 c 4", "MSETNX a 1");

    [RedisFact]
    public void IncrFamily_Success_Propagates()
        => Same("INCR n", "INCRBY n 0", "INCRBY n 5", "DECR n", "DECRBY n 3", "DECRBY n 0", "INCRBY n -2");

    [RedisFact]
    public void IncrFamily_Errors_PropagateNothing()
        => Same("SET s abc", "INCR s", "INCRBY s 1", "DECR s", "DECRBY s 1", "INCRBYFLOAT s 1", "LPUSH l a", "INCR l",
            "SET max 9223372036854775807", "INCR max", "INCRBY n x", "INCRBYFLOAT f inf");

    [RedisFact]
    public void StringSetters_WrongType_PropagateNothing()
        => Same("LPUSH l a", "GETSET l v", "SET l v GET", "GETDEL l", "GETEX l EX 10", "SETNX l v");

    [RedisFact]
    public void SetWithExpire_Errors_PropagateNothing()
        => Same("SETEX k 0 v", "PSETEX k -1 v", "SET k v EX 0", "SET k v EX abc", "SET k v PX 9223372036854775807",
            "SET k v EX 1 KEEPTTL", "GETEX k EX 0", "SET k v", "GETEX k EX 0", "GETEX k PX abc", "GETEX k EX 1 PERSIST");

    /// <summary>
    /// Not differential: Redis stores a key born expired, propagates the SET and a DEL when the key is
    /// next found; RedisClone does not store it (Set_AbsoluteExpireInPast_LeavesNoKey), so it
    /// propagates the DEL at once, leaving a replica with the same keys.
    /// </summary>
    [Fact]
    public void Set_ExpireInThePast_PropagatesDel()
        => Assert.Equal(["9 SET k v", "9 DEL k", "9 DEL e", "9 DEL g"],
            PropagationDifferential.Propagated("SET k v", "SET k w PXAT 1", "GET k", "SET e v EXAT 1", "EXISTS e", "SET g v PXAT 1 GET"));

    [RedisFact]
    public void IncrByFloat_Zero_StillPropagatesAsSet()
        => Same("SET f 1.5", "INCRBYFLOAT f 0", "HSET h f 2", "HINCRBYFLOAT h f 0");

    [RedisFact]
    public void StringSetters_Overwrite_Propagate()
        => Same("LPUSH l a", "SET l v", "SETNX n v", "SETEX e 100 v", "MSET l w", "GETSET l x");

    // ---- keys ----

    [RedisFact]
    public void Rename_ToItselfOrMissing_PropagatesNothing()
        => Same("SET a 1", "RENAME a a", "RENAMENX a a", "RENAME missing b", "RENAMENX missing b");

    [RedisFact]
    public void Rename_Moves_Propagates()
        => Same("SET a 1", "RENAME a b", "SET c 2", "RENAME b c", "RENAMENX c d");

    [RedisFact]
    public void RenameNx_DestinationExists_PropagatesNothing()
        => Same("SET a 1", "SET b 2", "RENAMENX a b");

    [RedisFact]
    public void Copy_Fails_PropagatesNothing()
        => Same("SET a 1", "SET b 2", "COPY a b", "COPY missing c", "COPY a a", "COPY a a REPLACE", "COPY a c DB 99");

    [RedisFact]
    public void Copy_Succeeds_Propagates()
        => Same("SELECT 10", "FLUSHDB", "SELECT 9", "SET a 1", "SET b 2", "COPY a c", "COPY a b REPLACE", "COPY a a2 DB 10",
            "RPUSH l x y", "COPY l l2", "SELECT 10", "FLUSHDB", "SELECT 9");

    [RedisFact]
    public void Move_Fails_PropagatesNothing()
        => Same("SELECT 10", "FLUSHDB", "SET a 0", "SELECT 9", "SET a 1", "MOVE a 10", "MOVE missing 10", "MOVE a 9",
            "MOVE a 99", "SELECT 10", "FLUSHDB", "SELECT 9");

    [RedisFact]
    public void Move_Succeeds_Propagates()
        => Same("SELECT 10", "FLUSHDB", "SELECT 9", "SET a 1", "MOVE a 10", "SELECT 10", "FLUSHDB", "SELECT 9");

    [RedisFact]
    public void SwapDb_Propagates()
        => Same("SELECT 10", "FLUSHDB", "SELECT 9", "SET a 1", "SWAPDB 9 10", "SWAPDB 10 9", "SWAPDB 9 9", "SWAPDB 9 99",
            "SELECT 10", "FLUSHDB", "SELECT 9");

    [RedisFact]
    public void Unlink_MissingKeys_PropagatesNothing()
        => Same("UNLINK a b", "SET a 1", "UNLINK a b", "DEL a");

    [RedisFact]
    public void Flush_Modes_PropagateAsSent()
        => Same("SET a 1", "FLUSHDB ASYNC", "FLUSHDB SYNC", "SET a 1", "FLUSHALL SYNC", "FLUSHALL ASYNC", "FLUSHDB BAD");

    [RedisFact]
    public void Expire_WrongArguments_PropagateNothing()
        => Same("SET k v", "EXPIRE k abc", "EXPIRE k 10 XX", "EXPIRE k 10 NX GT", "PEXPIRE k 1000 LT", "PERSIST missing");

    // ---- lists ----

    [RedisFact]
    public void LRem_RemovesNothing_PropagatesNothing()
        => Same("RPUSH l a b a", "LREM l 0 z", "LREM missing 0 a", "LREM l 1 a", "LREM l 0 a", "SET s v", "LREM s 0 a");

    [RedisFact]
    public void LTrim_KeepsEverything_PropagatesLikeRedis()
        => Same("RPUSH l a b c", "LTRIM l 0 -1", "LTRIM l 0 100", "LTRIM l 0 1", "LTRIM missing 0 1", "LTRIM l 5 10", "SET s v", "LTRIM s 0 1");

    [RedisFact]
    public void LSet_Propagates_ErrorsDoNot()
        => Same("RPUSH l a b", "LSET l 0 a", "LSET l 1 z", "LSET l 5 z", "LSET missing 0 z", "SET s v", "LSET s 0 z");

    [RedisFact]
    public void LInsert_PivotMissing_PropagatesNothing()
        => Same("RPUSH l a b", "LINSERT l BEFORE z x", "LINSERT missing BEFORE a x", "LINSERT l AFTER a x", "LINSERT l BEFORE a y",
            "SET s v", "LINSERT s BEFORE a x", "LINSERT l SIDEWAYS a x");

    [RedisFact]
    public void Pushes_Propagate_ErrorsAndMissingDoNot()
        => Same("LPUSHX l a", "RPUSHX l a", "RPUSH l a", "LPUSHX l b c", "RPUSHX l d", "SET s v", "LPUSH s a", "RPUSHX s a");

    [RedisFact]
    public void Pops_EmptyOrMissing_PropagateNothing()
        => Same("LPOP missing", "RPOP missing 2", "RPUSH l a b c", "LPOP l 0", "RPOP l 0", "LPOP l", "RPOP l 5", "SET s v", "LPOP s",
            "LPOP l -1");

    [RedisFact]
    public void LMove_Propagates_MissingSourceDoesNot()
        => Same("RPOPLPUSH missing d", "LMOVE missing d LEFT RIGHT", "RPUSH l a b", "LMOVE l l LEFT RIGHT", "RPOPLPUSH l l",
            "RPOPLPUSH l d", "LMOVE l d RIGHT LEFT", "SET s v", "RPUSH l2 x", "LMOVE l2 s LEFT LEFT", "RPOPLPUSH s l2");

    [RedisFact]
    public void LMPop_NothingToPop_PropagatesNothing()
        => Same("LMPOP 2 a b LEFT", "SET s v", "LMPOP 1 s LEFT", "RPUSH l a", "LMPOP 2 missing l RIGHT COUNT 10");

    [RedisFact]
    public void BlockingPops_TimeoutOrWrongType_PropagateNothing()
        => Same("BLPOP missing 0.01", "BRPOPLPUSH missing d 0.01", "BLMOVE missing d LEFT LEFT 0.01", "BLMPOP 0.01 1 missing LEFT",
            "BZPOPMIN missing 0.01", "BZMPOP 0.01 1 missing MIN", "SET s v", "BLPOP s 0", "BZPOPMAX s 0", "RPUSH l a",
            "BLMOVE l s LEFT LEFT 0", "BRPOPLPUSH l s 0");

    // ---- hashes ----

    [RedisFact]
    public void HSet_SameValue_StillPropagates()
        => Same("HSET h f v", "HSET h f v", "HMSET h f v g w", "HSET h f v f w");

    [RedisFact]
    public void HSetNx_ExistingField_PropagatesNothing()
        => Same("HSETNX h f v", "HSETNX h f w", "HSETNX h g w", "SET s v", "HSETNX s f v");

    [RedisFact]
    public void HDel_SomeFields_Propagates()
        => Same("HSET h a 1 b 2 c 3", "HDEL h a z", "HDEL h z y", "HDEL missing a", "HDEL h b c");

    [RedisFact]
    public void HIncrBy_Propagates_ErrorsDoNot()
        => Same("HINCRBY h f 1", "HINCRBY h f 0", "HSET h s abc", "HINCRBY h s 1", "HINCRBYFLOAT h s 1", "HINCRBY h f x",
            "SET str v", "HINCRBY str f 1", "HSET str f v", "HSET h", "HINCRBYFLOAT h f 0");

    // ---- sets ----

    [RedisFact]
    public void SAdd_SRem_NothingNew_PropagatesNothing()
        => Same("SADD s a b", "SADD s a b", "SADD s a c", "SREM s z", "SREM missing a", "SREM s a z", "SET str v", "SADD str a", "SREM str a");

    [RedisFact]
    public void SMove_NothingMoved_PropagatesNothing()
        => Same("SADD s a b", "SMOVE s d z", "SMOVE missing d a", "SMOVE s s a", "SMOVE s s z", "SET str v", "SMOVE s str a",
            "SMOVE str s a");

    [RedisFact]
    public void SMove_Moves_Propagates()
        => Same("SADD s a b", "SADD d b", "SMOVE s d a", "SMOVE s d b", "SMOVE d e a");

    [RedisFact]
    public void SetStore_EmptyResultNoDestination_PropagatesNothing()
        => Same("SADD a x", "SADD b y", "SINTERSTORE d a b", "SINTERSTORE d a missing", "SDIFFSTORE d a a", "SDIFFSTORE d missing a",
            "SUNIONSTORE d missing other", "SINTERSTORE d missing");

    [RedisFact]
    public void SetStore_EmptyResultOverDestination_Propagates()
        => Same("SADD a x", "SADD b y", "SET d1 v", "SINTERSTORE d1 a b", "SET d2 v", "SDIFFSTORE d2 a a", "SET d3 v", "SUNIONSTORE d3 m n",
            "SET d4 v", "SINTERSTORE d4 a missing");

    [RedisFact]
    public void SetStore_Result_Propagates()
        => Same("SADD a x y", "SADD b y z", "SINTERSTORE d a b", "SUNIONSTORE d a b", "SDIFFSTORE d a b", "SINTERSTORE d a", "SUNIONSTORE a a");

    [RedisFact]
    public void SetStore_WrongType_PropagatesNothing()
        => Same("SADD a x", "SET str v", "SINTERSTORE d a str", "SUNIONSTORE d str a", "SDIFFSTORE d a str", "SDIFFSTORE d missing str");

    [RedisFact]
    public void SPop_CountZeroOrMissing_PropagatesNothing()
        => Same("SPOP missing 3", "SADD s a", "SPOP s 0", "SET str v", "SPOP str", "SPOP s -1");

    // ---- sorted sets ----

    [RedisFact]
    public void ZAdd_SameScore_PropagatesNothing()
        => Same("ZADD z 1 a 2 b", "ZADD z 1 a", "ZADD z 1 a 2 b", "ZADD z CH 1 a", "ZADD z 1 a 3 c", "ZADD z 5 a");

    [RedisFact]
    public void ZAdd_Flags_PropagateOnlyChanges()
        => Same("ZADD z XX 1 a", "ZADD z 1 a", "ZADD z XX 1 b", "ZADD z XX 2 a", "ZADD z NX 5 a", "ZADD z NX 5 b",
            "ZADD z GT 1 a", "ZADD z GT 3 a", "ZADD z LT 4 a", "ZADD z LT 2 a", "ZADD z GT CH 9 n", "ZADD z XX CH 2 a");

    [RedisFact]
    public void ZAdd_FlagsOnMissingKey_CreateItOrNot()
        => Same("ZADD a GT 1 m", "ZADD b LT CH 1 m", "ZADD c NX 1 m", "ZADD d XX 1 m", "ZADD e XX INCR 1 m", "ZADD f GT INCR 2 m");

    [RedisFact]
    public void ZAdd_Incr_PropagatesOnlyChanges()
        => Same("ZADD z INCR 1 a", "ZADD z INCR 0 a", "ZADD z INCR 2 a", "ZADD z NX INCR 1 a", "ZADD z XX INCR 1 b",
            "ZADD z GT INCR -1 a", "ZADD z LT INCR 1 a", "ZADD z LT INCR -1 a");

    [RedisFact]
    public void ZAdd_Errors_PropagateNothing()
        => Same("ZADD z 1 a", "ZADD z x a", "ZADD z NX XX 1 a", "ZADD z GT LT 1 a", "ZADD z INCR 1 a 2 b", "ZADD z INCR inf a",
            "ZADD z INCR -inf a", "SET s v", "ZADD s 1 a", "ZADD z 1");

    [RedisFact]
    public void ZIncrBy_Zero_PropagatesNothing()
        => Same("ZINCRBY z 1 a", "ZINCRBY z 0 a", "ZINCRBY z 2.5 a", "ZINCRBY z 0 b", "SET s v", "ZINCRBY s 1 a", "ZINCRBY z x a");

    [RedisFact]
    public void ZRem_RemovesNothing_PropagatesNothing()
        => Same("ZADD z 1 a 2 b", "ZREM z x", "ZREM missing a", "ZREM z a x", "ZREM z b", "SET s v", "ZREM s a");

    [RedisFact]
    public void ZRemRange_RemovesNothing_PropagatesNothing()
        => Same("ZADD z 1 a 2 b 3 c", "ZREMRANGEBYSCORE z 10 20", "ZREMRANGEBYRANK z 5 10", "ZREMRANGEBYLEX z [x [z",
            "ZREMRANGEBYSCORE missing 0 1", "ZREMRANGEBYSCORE z 1 1", "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYLEX z - (c",
            "ZREMRANGEBYLEX z bad c", "ZREMRANGEBYSCORE z x 1", "SET s v", "ZREMRANGEBYRANK s 0 1");

    [RedisFact]
    public void ZRangeStore_EmptyResult_PropagatesOnlyOverDestination()
        => Same("ZADD z 1 a 2 b", "ZRANGESTORE d z 5 10", "ZRANGESTORE d missing 0 -1", "SET d2 v", "ZRANGESTORE d2 z 5 10",
            "ZRANGESTORE d3 z 0 0", "ZRANGESTORE d4 z (1 +inf BYSCORE", "ZRANGESTORE d5 z [a [b BYLEX REV", "ZRANGESTORE d5 z [b [a BYLEX REV",
            "SET s v", "ZRANGESTORE d s 0 -1");

    [RedisFact]
    public void ZSetStore_EmptyResult_PropagatesOnlyOverDestination()
        => Same("ZADD a 1 x", "ZADD b 1 y", "ZINTERSTORE d 2 a b", "ZUNIONSTORE d 2 m n", "ZDIFFSTORE d 2 a a",
            "SET d2 v", "ZINTERSTORE d2 2 a b", "SET d3 v", "ZDIFFSTORE d3 1 missing", "SET d4 v", "ZUNIONSTORE d4 1 missing");

    [RedisFact]
    public void ZSetStore_Result_Propagates()
        => Same("ZADD a 1 x 2 y", "SADD b y", "ZINTERSTORE d 2 a b", "ZUNIONSTORE d 2 a b WEIGHTS 1 2 AGGREGATE MAX", "ZDIFFSTORE d 2 a b",
            "ZUNIONSTORE a 1 a");

    [RedisFact]
    public void ZSetStore_Errors_PropagateNothing()
        => Same("ZADD a 1 x", "SET s v", "ZUNIONSTORE d 2 a s", "ZINTERSTORE d 0 a", "ZDIFFSTORE d 3 a", "ZUNIONSTORE d 1 a WEIGHTS x",
            "ZINTERSTORE d 1 a AGGREGATE BAD");

    [RedisFact]
    public void ZPop_CountZeroOrMissing_PropagatesNothing()
        => Same("ZPOPMIN missing", "ZADD z 1 a 2 b", "ZPOPMIN z 0", "ZPOPMAX z 0", "ZPOPMIN z -1", "SET s v", "ZPOPMAX s",
            "ZPOPMIN z 5", "ZMPOP 1 z MIN", "ZMPOP 2 m n MAX");

    // ---- sort ----

    [RedisFact]
    public void Sort_WithoutStore_PropagatesNothing()
        => Same("RPUSH l 3 1 2", "SORT l", "SORT l DESC LIMIT 0 1", "SORT missing");

    [RedisFact]
    public void Sort_Store_PropagatesLikeRedis()
        => Same("RPUSH l 3 1 2", "SORT l STORE d", "SORT missing STORE d2", "SORT missing STORE d", "SORT l LIMIT 5 1 STORE d3",
            "SET s v", "SORT s STORE d4", "SADD set b a", "SORT set ALPHA STORE d5", "SORT set STORE d6");

    // ---- across families: expired keys, WATCH, blocked clients ----

    [RedisFact]
    public void NoOpWrite_OnExpiredKey_PropagatesOnlyTheDel()
        => Same("SET k v PX 1", "SET z v PX 1", "RPUSH l a", "PEXPIRE l 1", "SADD s a", "PEXPIRE s 1", "!sleep 20",
            "SETRANGE k 0 ''", "ZADD z XX 1 a", "LTRIM l 0 -1", "SREM s a");


    /// <summary>KEYS only skips expired keys in Redis (keyIsExpired), it does not delete them; the others delete and propagate DEL.</summary>
    [RedisFact]
    public void ReadCommands_OnExpiredKeys_PropagateAsRedis()
        => Same("SET a v PX 1", "SET b v PX 1", "SET c v PX 1", "SET d v PX 1", "RPUSH e x", "PEXPIRE e 1", "SET f v PX 1", "!sleep 20",
            "KEYS *", "DBSIZE", "EXISTS a", "TTL b", "TYPE c", "STRLEN d", "LRANGE e 0 -1", "MGET f zz", "KEYS *");

    [RedisFact]
    public void MoreReadCommands_OnExpiredKeys_PropagateDel()
        => Same("SET a v PX 1", "SADD b x", "PEXPIRE b 1", "ZADD c 1 x", "PEXPIRE c 1", "HSET d f v", "PEXPIRE d 1", "SET e v PX 1",
            "SET f v PX 1", "RPUSH g 2 1", "PEXPIRE g 1", "SET h v PX 1", "!sleep 20",
            "OBJECT ENCODING a", "SRANDMEMBER b", "ZRANDMEMBER c", "HRANDFIELD d", "TOUCH e", "GETRANGE f 0 1", "SORT_RO g",
            "EXPIRETIME h", "SINTERCARD 1 b", "LCS a f");

    [RedisFact]
    public void Transaction_NoOpWrites_DoNotCountAsWrites()
        => Same("ZADD z 1 a", "SET k v", "MULTI", "ZADD z 1 a", "SETRANGE k 0 ''", "RENAME k k", "LTRIM z 0 -1", "ZREM z x", "EXEC",
            "MULTI", "ZADD z 1 a", "ZADD z 2 a", "EXEC", "MULTI", "ZADD z 2 a", "INCR n", "SET k v", "EXEC");

    /// <summary>
    /// Redis signals exactly where its dirty counter moves, with one exception: LTRIM that keeps
    /// every element still signals (so a WATCH breaks) though it propagates nothing.
    /// </summary>
    [RedisFact]
    public void Watch_NoOpWrites_HoldAsInRedis()
        => SameReplies(
            "ZADD z 1 a", "WATCH z", "ZADD z 1 a", "ZADD z XX 1 b", "ZINCRBY z 0 a", "ZREM z x", "ZREMRANGEBYSCORE z 5 9",
            "MULTI", "PING", "EXEC",
            "SET k v", "WATCH k", "SETRANGE k 0 ''", "RENAME k k", "RENAMENX k k", "MOVE missing 10", "MULTI", "PING", "EXEC",
            "SET d v", "WATCH d", "COPY k d", "RENAMENX k d", "ZUNIONSTORE d2 1 nothing", "MULTI", "PING", "EXEC",
            "RPUSH l a b", "WATCH l", "LTRIM l 0 -1", "MULTI", "PING", "EXEC",
            "WATCH d", "ZINTERSTORE d 1 nothing", "MULTI", "PING", "EXEC");

    [RedisFact]
    public void Watch_MoveAndCopyToAnotherDb_BreakTheWatchThere()
        => SameReplies(
            "SELECT 10", "FLUSHDB", "WATCH a", "SELECT 9", "SET a 1", "MOVE a 10", "MULTI", "PING", "EXEC",
            "SELECT 10", "WATCH c", "SELECT 9", "SET b 1", "COPY b c DB 10", "MULTI", "PING", "EXEC",
            "WATCH c", "COPY b c DB 10 REPLACE", "MULTI", "PING", "EXEC",
            "SELECT 10", "FLUSHDB", "SELECT 9");

    [Fact]
    public async Task BlockedPop_ServedByMoveOrCopyIntoItsDb()
    {
        await using var server = TestServer.Start(shards: 4);
        using var waiter = server.Connect();
        using var writer = server.Connect();
        waiter.Call("SELECT", "1");
        Blocked.Send(waiter, writer, "BLPOP", "l", "0");
        writer.Call("RPUSH", "l", "a");
        Assert.Equal(":1\r\n", writer.Call("MOVE", "l", "1"));
        Assert.Equal("*2\r\n$1\r\nl\r\n$1\r\na\r\n", waiter.ReadReply());
        Blocked.Send(waiter, writer, "BLPOP", "l2", "0");
        writer.Call("RPUSH", "src", "b");
        Assert.Equal(":1\r\n", writer.Call("COPY", "src", "l2", "DB", "1"));
        Assert.Equal("*2\r\n$2\r\nl2\r\n$1\r\nb\r\n", waiter.ReadReply());
    }
}
