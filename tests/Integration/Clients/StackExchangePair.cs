using System.Collections;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// A private redis-server 7.0 and a private RedisClone, each behind its own StackExchange.Redis
/// multiplexer, shared by the classes of the <see cref="StackExchangePairCollection"/> (which run one
/// after another, so tests may flush or reconfigure as long as they put things back).
/// <see cref="Same{T}(Func{IDatabase, Task{T}}, string)"/> makes the same typed call on both and
/// compares what the client made of the replies: values, result objects, or the error text.
/// </summary>
public sealed class StackExchangePair : IDisposable
{
    public const string Collection = "StackExchange.Redis against redis-server and RedisClone";

    private readonly Lazy<(PairedServers Servers, Side Theirs, Side Ours)> _started = new(() =>
    {
        var servers = new PairedServers();
        return (servers, new Side("redis-server", servers.ReferencePort), new Side("redisclone", servers.OurPort));
    });

    /// <summary>redis-server 7.0.15, the reference.</summary>
    public Side Theirs => _started.Value.Theirs;

    public Side Ours => _started.Value.Ours;

    /// <summary>The same call on redis-server, then on RedisClone; fails unless the outcomes render alike. Returns ours.</summary>
    public async Task<string> SameOn<T>(Func<Side, Task<T>> call, [CallerArgumentExpression(nameof(call))] string what = "")
    {
        string theirs = await Outcome(call, Theirs);
        string ours = await Outcome(call, Ours);
        if (theirs != ours)
            throw new Xunit.Sdk.XunitException($"{what}\n  redis-server: {theirs}\n  redisclone:   {ours}");
        return ours;
    }

    public Task<string> Same<T>(Func<IDatabase, Task<T>> call, [CallerArgumentExpression(nameof(call))] string what = "")
        => SameOn(side => call(side.Db), what);

    /// <summary>For calls that return nothing (HashSet, ...): they must both succeed or fail alike.</summary>
    public Task<string> Same(Func<IDatabase, Task> call, [CallerArgumentExpression(nameof(call))] string what = "")
        => SameOn(async side => { await call(side.Db); return "done"; }, what);

    /// <summary>A raw command through IDatabase.Execute (blocking commands, BITFIELD...).</summary>
    public Task<string> SameExecute(string command, params object[] args)
        => SameOn(side => side.Db.ExecuteAsync(command, args), command + " " + string.Join(' ', args));

    /// <summary>Runs <paramref name="call"/> on both servers without comparing (random replies); returns both outcomes.</summary>
    public async Task<(T Theirs, T Ours)> Both<T>(Func<IDatabase, Task<T>> call)
        => (await call(Theirs.Db), await call(Ours.Db));

    private static async Task<string> Outcome<T>(Func<Side, Task<T>> call, Side side)
    {
        try
        {
            return Render(await call(side));
        }
        catch (RedisServerException e)
        {
            return "error: " + e.Message;
        }
    }

    /// <summary>
    /// What a result means to the caller, as text: values quoted, nil apart from empty, sequences in
    /// order, result objects (StreamEntry, GeoRadiusResult, ListPopResult...) by their public properties.
    /// </summary>
    public static string Render(object? o, int depth = 0)
    {
        if (depth > 8) return "...";
        switch (o)
        {
            case null: return "null";
            case RedisValue v: return v.IsNull ? "nil" : "'" + v + "'";
            case RedisKey k: return (string?)k is { } key ? "'" + key + "'" : "nil";
            case RedisResult r:
                if (r.IsNull) return "nil";
                return r.Resp2Type == ResultType.Array ? Render((RedisResult[])r!, depth + 1) : "'" + r + "'";
            case string s: return "'" + s + "'";
            case byte[] b: return "0x" + Convert.ToHexString(b);
            case double d: return d.ToString("R", CultureInfo.InvariantCulture);
            case float f: return f.ToString("R", CultureInfo.InvariantCulture);
            case Enum or bool or char: return o.ToString()!;
            case DateTime t: return t.ToString("O", CultureInfo.InvariantCulture);
            case TimeSpan t: return t.ToString("c", CultureInfo.InvariantCulture);
            case IEnumerable e: return "[" + string.Join(", ", e.Cast<object?>().Select(x => Render(x, depth + 1))) + "]";
        }
        var type = o.GetType();
        if (type.IsPrimitive || o is decimal) return Convert.ToString(o, CultureInfo.InvariantCulture)!;
        var parts = type.GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(p => p.GetIndexParameters().Length == 0)
            .Select(p => p.Name + "=" + RenderProperty(p, o, depth))
            .Concat(type.GetFields(BindingFlags.Public | BindingFlags.Instance).Select(f => f.Name + "=" + Render(f.GetValue(o), depth + 1))); // tuples
        return (type.Name.StartsWith("<>") ? "" : type.Name) + "{" + string.Join(", ", parts) + "}";
    }

    private static string RenderProperty(PropertyInfo p, object o, int depth)
    {
        try
        {
            return Render(p.GetValue(o), depth + 1);
        }
        catch (TargetInvocationException e)
        {
            return "(" + e.InnerException?.GetType().Name + ")";
        }
    }

    public void Dispose()
    {
        if (!_started.IsValueCreated) return;
        var (servers, theirs, ours) = _started.Value;
        theirs.Dispose();
        ours.Dispose();
        servers.Dispose();
    }

    /// <summary>One server and the client's view of it.</summary>
    public sealed class Side : IDisposable
    {
        internal Side(string name, int port)
        {
            Name = name;
            Port = port;
            Mux = ConnectionMultiplexer.Connect(StackExchangeConnections.Options(port, allowAdmin: true, abortOnConnectFail: true));
        }

        public string Name { get; }
        public int Port { get; }
        public ConnectionMultiplexer Mux { get; }
        public IDatabase Db => Mux.GetDatabase();
        public IServer Server => Mux.GetServer("127.0.0.1", Port);

        /// <summary>A second multiplexer, for a client that blocks or writes concurrently.</summary>
        public ConnectionMultiplexer ConnectAnother() => StackExchangeConnections.Connect(Port, allowAdmin: true);

        public RespClient Raw() => new(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, Port));

        public override string ToString() => Name;

        public void Dispose() => Mux.Dispose();
    }
}

/// <summary>The classes that share one <see cref="StackExchangePair"/>: they run one after another.</summary>
[CollectionDefinition(StackExchangePair.Collection)]
public sealed class StackExchangePairCollection : ICollectionFixture<StackExchangePair>;
