using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// How the StackExchange.Redis tests connect: loopback, generous timeouts (the machines running the
/// suite are shared and busy), RESP2 unless a test asks for RESP3. One place, so every client test
/// connects the same way to our server and to redis-server.
/// </summary>
internal static class StackExchangeConnections
{
    public static ConfigurationOptions Options(int port, RedisProtocol protocol = RedisProtocol.Resp2,
        bool allowAdmin = false, bool abortOnConnectFail = false) => new()
    {
        EndPoints = { { "127.0.0.1", port } },
        AllowAdmin = allowAdmin,
        ConnectTimeout = 10_000,
        SyncTimeout = 10_000,
        AsyncTimeout = 10_000,
        AbortOnConnectFail = abortOnConnectFail,
        Protocol = protocol,
    };

    /// <summary>A connection that throws at once when the server does not answer (the connect itself is under test).</summary>
    public static ConnectionMultiplexer Connect(int port, bool allowAdmin = false)
        => ConnectionMultiplexer.Connect(Options(port, allowAdmin: allowAdmin, abortOnConnectFail: true));
}
