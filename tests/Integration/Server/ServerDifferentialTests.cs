using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// Connection and server commands whose replies do not depend on the server's identity, run
/// against redis-server and RedisClone with byte-identical replies required. Left out on purpose:
/// replies carrying versions, ids, addresses or times (HELLO, CLIENT LIST, INFO, TIME), and
/// settings the reference server was started with differently (save, loglevel).
/// </summary>
public class ServerDifferentialTests
{
    [RedisFact]
    public void PingEchoSelect_SameAsRedis() => Differential.AssertSame(
        "PING",
        "PING hello",
        "PING a b",
        "ECHO",
        "ECHO x",
        "ECHO x y",
        "SELECT 16",
        "SELECT -1",
        "SELECT x",
        "SELECT 1.5",
        "SELECT 99999999999999999999",
        "SELECT 9",
        "PING");

    [RedisFact]
    public void HelloAndAuthErrors_SameAsRedis() => Differential.AssertSame(
        "HELLO 4",
        "HELLO 1",
        "HELLO 0",
        "HELLO -1",
        "HELLO abc",
        "HELLO 3.0",
        "HELLO 2 AUTH default",
        "HELLO 3 SETNAME",
        "HELLO 3 FOO",
        "HELLO 2 x",
        "HELLO 3 AUTH nobody pass",
        "AUTH",
        "AUTH secret",
        "AUTH someone x",
        "AUTH default x",
        "AUTH a b c",
        "PING");

    [RedisFact]
    public void ClientCommands_SameAsRedis() => Differential.AssertSame(
        "CLIENT",
        "CLIENT FOO",
        "CLIENT GETNAME",
        "CLIENT SETNAME diff-test",
        "CLIENT GETNAME",
        "CLIENT SETNAME",
        "CLIENT SETNAME a b",
        "CLIENT GETNAME",
        "CLIENT ID x",
        "CLIENT GETREDIR",
        "CLIENT NO-EVICT on",
        "CLIENT NO-EVICT off",
        "CLIENT NO-EVICT maybe",
        "CLIENT REPLY maybe",
        "CLIENT LIST TYPE bogus",
        "CLIENT LIST ID 1 x",
        "CLIENT LIST foo",
        "CLIENT LIST TYPE",
        "CLIENT LIST TYPE master",
        "CLIENT LIST ID 999999",
        "CLIENT KILL 1.2.3.4:5",
        "CLIENT KILL ID 999999",
        "CLIENT KILL ID x",
        "CLIENT KILL ID 0",
        "CLIENT KILL foo bar",
        "CLIENT KILL SKIPME maybe",
        "CLIENT KILL TYPE foo",
        "CLIENT KILL USER foo",
        "CLIENT KILL ID",
        "CLIENT KILL ID 1 SKIPME",
        "CLIENT KILL",
        "CLIENT PAUSE x",
        "CLIENT PAUSE -1",
        "CLIENT PAUSE 10 READ",
        "CLIENT PAUSE 0 WRITE x",
        "CLIENT UNPAUSE",
        "CLIENT SETNAME",
        "CLIENT HELP x",
        "client help x y",
        "PING");

    [RedisFact]
    public void ConfigGetAndSetErrors_SameAsRedis() => Differential.AssertSame(
        "CONFIG",
        "CONFIG FOO",
        "CONFIG HELP x",
        "config help x",
        "CONFIG GET",
        "CONFIG GET databases",
        "CONFIG GET MAXMEMORY",
        "CONFIG GET maxmemory MAXMEMORY",
        "CONFIG GET maxmemory-policy",
        "CONFIG GET appendonly",
        "CONFIG GET timeout",
        "CONFIG GET tcp-keepalive",
        "CONFIG GET hz",
        "CONFIG GET proto-max-bulk-len",
        "CONFIG GET client-query-buffer-limit",
        "CONFIG GET slave-read-only",
        "CONFIG GET replica-read-only",
        "CONFIG GET list-max-ziplist-size",
        "CONFIG GET hash-max-listpack-entries",
        "CONFIG GET zset-max-ziplist-value",
        "CONFIG GET notify-keyspace-events",
        "CONFIG GET client-output-buffer-limit",
        "CONFIG GET lua-time-limit",
        "CONFIG GET slowlog-log-slower-than",
        "CONFIG GET no-such-param",
        "CONFIG GET *read-only*x",
        "CONFIG SET",
        "CONFIG SET hz",
        "CONFIG SET hz 10 timeout",
        "CONFIG SET foo bar",
        "CONFIG SET maxmemory x foo bar",
        "CONFIG SET maxmemory foo",
        "CONFIG SET MAXMEMORY -1",
        "CONFIG SET hz x",
        "CONFIG SET hz -5",
        "CONFIG SET hz 5 HZ 6",
        "CONFIG SET databases 5",
        "CONFIG SET dir /tmp",
        "CONFIG SET dbfilename x.rdb",
        "CONFIG SET io-threads 2",
        "CONFIG SET slave-read-only x",
        "CONFIG SET maxmemory-policy foo",
        "CONFIG SET appendfsync x",
        "CONFIG SET timeout -1",
        "CONFIG SET maxclients -1",
        "CONFIG SET hash-max-listpack-entries -1",
        "CONFIG SET proto-max-bulk-len 10",
        "CONFIG SET list-max-listpack-size -99999999999",
        "CONFIG SET maxmemory-clients 101%",
        "CONFIG SET maxmemory-clients x",
        "CONFIG SET save 10",
        "CONFIG SET notify-keyspace-events q",
        "CONFIG SET activedefrag yes",
        "CONFIG REWRITE");

    [RedisFact]
    public void ConfigSetMultiWordErrors_SameAsRedis() => Differential.AssertSame(
        ["CONFIG", "SET", "save", "0 5"],
        ["CONFIG", "SET", "save", "100  5"],
        ["CONFIG", "SET", "save", "5 x"],
        ["CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 2mb"],
        ["CONFIG", "SET", "client-output-buffer-limit", "master 1 2 3"],
        ["CONFIG", "SET", "client-output-buffer-limit", "normal x 2 3"],
        ["CONFIG", "SET", "oom-score-adj-values", "1 2"],
        ["CONFIG", "SET", "oom-score-adj-values", "1 2 x"]);

    [RedisFact]
    public void ServerMiscellany_SameAsRedis() => Differential.AssertSame(
        "CLUSTER",
        "CLUSTER INFO",
        "CLUSTER NODES",
        "CLUSTER SLOTS",
        "CLUSTER HELP",
        "CLUSTER KEYSLOT",
        "CLUSTER KEYSLOT a",
        "CLUSTER FOO",
        "SENTINEL MASTERS",
        "DEBUG",
        "DEBUG SLEEP 0",
        "DEBUG JMAP",
        "SHUTDOWN FOO",
        "SHUTDOWN NOSAVE SAVE",
        "SHUTDOWN ABORT NOW",
        "SHUTDOWN ABORT",
        "TIME x",
        "LASTSAVE x",
        "INFO nosuchsection",
        "PING");
}
