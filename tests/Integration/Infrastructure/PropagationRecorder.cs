using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// What a replica of RedisClone would receive: every propagated unit, as lines. A command is
/// "db ARG ARG ..." (its database first; SELECT itself is not shown), a transaction's commands sit
/// between "MULTI" and "EXEC". Only commands meant for replicas are kept.
/// </summary>
internal sealed class PropagationRecorder : IPropagationListener
{
    private readonly List<string> _lines = new();

    public void Propagate(PropagatedUnit unit)
    {
        var lines = new List<string>();
        if (unit.Transaction) lines.Add("MULTI");
        for (int c = 0; c < unit.Count; c++)
        {
            if ((unit.Target(c) & PropagationTarget.Replicas) == 0) continue;
            var line = new StringBuilder().Append(unit.Db(c));
            for (int a = 0; a < unit.ArgCount(c); a++) line.Append(' ').Append(Encoding.Latin1.GetString(unit.Arg(c, a)));
            lines.Add(line.ToString());
        }
        if (unit.Transaction) lines.Add("EXEC");
        lock (_lines) _lines.AddRange(lines);
    }

    /// <summary>The lines recorded since the last call, and forgets them.</summary>
    public List<string> Take()
    {
        lock (_lines)
        {
            var copy = new List<string>(_lines);
            _lines.Clear();
            return copy;
        }
    }
}

/// <summary>
/// Attaches to a redis-server as a replica (SYNC), skips the snapshot, and reads the command stream
/// the master sends, in the same line form as <see cref="PropagationRecorder"/>: what Redis itself
/// propagates, for differential tests. The reference server must save its snapshot to disk
/// (repl-diskless-sync no) in a directory of the test's own.
/// </summary>
internal sealed class ReplicaStream : IDisposable
{
    private readonly Socket _socket;
    private byte[] _buffer = new byte[1 << 16];
    private int _start, _end;
    private int _db = 0;

    private ReplicaStream(Socket socket) => _socket = socket;

    public static ReplicaStream Attach(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 15_000 };
        socket.Connect(IPAddress.Loopback, port);
        var stream = new ReplicaStream(socket);
        socket.Send("SYNC\r\n"u8.ToArray());
        // The master sends newlines while it prepares the snapshot, then "$<length>\r\n<rdb>" with no CRLF after.
        string header;
        do header = stream.ReadLine(); while (header.Length == 0);
        if (header[0] != '$') throw new InvalidOperationException("SYNC answered " + header);
        stream.Skip(long.Parse(header.AsSpan(1)));
        return stream;
    }

    /// <summary>
    /// Reads the stream until the fence command (<paramref name="fenceKey"/> as a command's first key)
    /// arrives; returns what came before it. PING (the master's heartbeat) is left out.
    /// </summary>
    public List<string> ReadUntilFence(string fenceKey)
    {
        var lines = new List<string>();
        while (true)
        {
            var args = ReadCommand();
            string name = args[0].ToUpperInvariant();
            if (name == "PING") continue;
            if (name == "SELECT")
            {
                _db = int.Parse(args[1]);
                continue;
            }
            if (args.Length > 1 && args[1] == fenceKey) return lines;
            lines.Add(name is "MULTI" or "EXEC" ? name : _db + " " + string.Join(' ', args));
        }
    }

    private string[] ReadCommand()
    {
        string head = ReadLine();
        if (head.Length == 0 || head[0] != '*') throw new InvalidOperationException("unexpected in the replication stream: " + head);
        var args = new string[int.Parse(head.AsSpan(1))];
        for (int i = 0; i < args.Length; i++)
        {
            string len = ReadLine();
            int n = int.Parse(len.AsSpan(1));
            Fill(n + 2);
            args[i] = Encoding.Latin1.GetString(_buffer, _start, n);
            _start += n + 2;
        }
        return args;
    }

    private string ReadLine()
    {
        while (true)
        {
            int nl = Array.IndexOf(_buffer, (byte)'\n', _start, _end - _start);
            if (nl >= 0)
            {
                int end = nl > _start && _buffer[nl - 1] == '\r' ? nl - 1 : nl;
                string line = Encoding.Latin1.GetString(_buffer, _start, end - _start);
                _start = nl + 1;
                return line;
            }
            Receive();
        }
    }

    private void Fill(int count)
    {
        if (count > _buffer.Length - _start)
        {
            var bigger = new byte[Math.Max(count, _buffer.Length * 2)];
            Array.Copy(_buffer, _start, bigger, 0, _end - _start);
            _end -= _start;
            _start = 0;
            _buffer = bigger;
        }
        while (_end - _start < count) Receive();
    }

    private void Skip(long count)
    {
        while (count > 0)
        {
            if (_start == _end) Receive();
            int n = (int)Math.Min(count, _end - _start);
            _start += n;
            count -= n;
        }
    }

    private void Receive()
    {
        if (_start > 0)
        {
            Array.Copy(_buffer, _start, _buffer, 0, _end - _start);
            _end -= _start;
            _start = 0;
        }
        int n = _socket.Receive(_buffer, _end, _buffer.Length - _end, SocketFlags.None);
        if (n == 0) throw new InvalidOperationException("the master closed the replication link");
        _end += n;
    }

    public void Dispose() => _socket.Dispose();
}
