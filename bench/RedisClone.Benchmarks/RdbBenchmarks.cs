using System.Buffers;
using System.Net.Sockets;
using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Persistence;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Benchmarks;

/// <summary>
/// An RDB file's keys loaded (<see cref="RdbLoader"/> from an image in memory, into emptied
/// databases) and serialized (<see cref="RdbOutput.WriteKey"/> for every key into a reused buffer:
/// a save without the file), per key. The image is what a real server saves: the setup starts
/// one, fills it over a socket and takes its dump.rdb. Strings: 100-byte values LZF cannot shrink;
/// mixed: the shape of bench/memtier/rdb.py's mixed dataset.
/// </summary>
[MemoryDiagnoser]
public class RdbBenchmarks
{
    private const int Keys = 10_000;

    private RedisServer _server = null!;
    private byte[] _image = null!;
    private readonly ArrayBufferWriter<byte> _buffer = new(1 << 20);

    [Params("strings", "mixed")]
    public string Dataset { get; set; } = "strings";

    [GlobalSetup]
    public void Setup()
    {
        _image = MakeImage(Dataset);
        _server = new RedisServer(ServerOptions.Parse(["--port", "0", "--save", ""]));
        Load();
    }

    [Benchmark(OperationsPerInvoke = Keys, Description = "load, per key")]
    public long Load()
    {
        var shards = _server.Shards;
        for (int s = 0; s < shards.Count; s++) shards[s].Store[0].Clear();
        return RdbLoader.Load(_server, _image).KeysLoaded;
    }

    [Benchmark(OperationsPerInvoke = Keys, Description = "serialize, per key")]
    public int Serialize()
    {
        _buffer.ResetWrittenCount();
        var shards = _server.Shards;
        for (int s = 0; s < shards.Count; s++)
        {
            var table = shards[s].Store[0].Table;
            for (int slot = 0; slot < table.SlotCount; slot++)
            {
                if (!table.IsUsed(slot)) continue;
                RdbOutput.WriteKey(_buffer, in table.At(slot), table.ExpireAt(slot), -1, compress: true);
                if (_buffer.WrittenCount > 1 << 19) _buffer.ResetWrittenCount();
            }
        }
        return _buffer.WrittenCount;
    }

    /// <summary>The dump.rdb of a server given the dataset's commands.</summary>
    private static byte[] MakeImage(string dataset)
    {
        string dir = Directory.CreateTempSubdirectory("rdb-bench-").FullName;
        try
        {
            var server = RedisCloneServer.StartAsync("--dir", dir, "--save", "").GetAwaiter().GetResult();
            try
            {
                using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
                socket.Connect(server.EndPoint);
                var random = new Random(42);
                var commands = new MemoryStream();
                for (int i = 0; i < Keys; i++) Command(commands, Fill(dataset, i, random));
                Command(commands, ["SAVE"]);
                socket.Send(commands.ToArray());
                // Every reply is one line (+OK or an integer); SAVE's is the last.
                var chunk = new byte[65536];
                for (int lines = 0; lines < Keys + 1;)
                {
                    int n = socket.Receive(chunk);
                    if (n == 0) throw new InvalidOperationException("the server closed the connection");
                    if (chunk.AsSpan(0, n).IndexOf((byte)'-') >= 0) throw new InvalidOperationException("an error reply");
                    lines += chunk.AsSpan(0, n).Count((byte)'\n');
                }
            }
            finally
            {
                server.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
            return File.ReadAllBytes(Path.Combine(dir, "dump.rdb"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static string Value(Random random, int size)
    {
        var bytes = new byte[size * 3 / 4 + 3];
        random.NextBytes(bytes);
        return Convert.ToBase64String(bytes)[..size];
    }

    private static List<string> Fill(string dataset, int i, Random random)
    {
        string key = $"key:{i:D10}";
        int kind = dataset == "strings" ? 0 : i % 100;
        List<string> args = kind switch
        {
            < 50 => ["SET", key, Value(random, 100)],
            < 60 => ["HSET", key],
            < 70 => ["RPUSH", key],
            < 75 => ["SADD", key],
            < 80 => ["SADD", key],
            < 90 => ["ZADD", key],
            < 99 => ["SET", key, random.NextInt64(1L << 62).ToString()],
            _ => ["HSET", key],
        };
        int elements = kind == 99 ? 1000 : 10;
        if (args.Count == 2)
        {
            for (int j = 0; j < elements; j++)
            {
                switch (args[0])
                {
                    case "HSET": args.Add($"field:{j}"); args.Add(Value(random, 20)); break;
                    case "RPUSH": args.Add(Value(random, 20)); break;
                    case "SADD": args.Add(kind < 75 ? Value(random, 20) : random.NextInt64(1L << 40).ToString()); break;
                    case "ZADD": args.Add((random.NextDouble() * 1000).ToString("F3")); args.Add(Value(random, 20)); break;
                }
            }
        }
        return args;
    }

    private static void Command(Stream output, List<string> args)
    {
        var sb = new StringBuilder();
        sb.Append('*').Append(args.Count).Append("\r\n");
        foreach (var a in args) sb.Append('$').Append(Encoding.UTF8.GetByteCount(a)).Append("\r\n").Append(a).Append("\r\n");
        var bytes = Encoding.UTF8.GetBytes(sb.ToString());
        output.Write(bytes);
    }
}
