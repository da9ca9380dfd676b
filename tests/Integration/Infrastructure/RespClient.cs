using System.Net;
using System.Net.Sockets;
using System.Text;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// A minimal RESP client over a raw socket for tests that assert exact bytes: it sends commands
/// (or raw bytes) and reads back exactly one reply at a time, as the bytes that came on the wire.
/// </summary>
public sealed class RespClient : IDisposable
{
    private readonly Socket _socket;
    private readonly byte[] _buffer = new byte[64 * 1024];
    private int _start, _end;

    public RespClient(EndPoint endPoint, int timeoutMs = 10_000)
    {
        // A Unix socket (UnixDomainSocketEndPoint) too: TCP's options do not apply there.
        _socket = endPoint is UnixDomainSocketEndPoint
            ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        _socket.ReceiveTimeout = timeoutMs;
        _socket.SendTimeout = timeoutMs;
        _socket.Connect(endPoint);
    }

    /// <summary>Encodes a command as a RESP multibulk array.</summary>
    public static byte[] Encode(params string[] args) => Encode(args.Select(a => Encoding.UTF8.GetBytes(a)).ToArray());

    public static byte[] Encode(params byte[][] args)
    {
        var ms = new MemoryStream();
        ms.Write(Encoding.ASCII.GetBytes($"*{args.Length}\r\n"));
        foreach (var a in args)
        {
            ms.Write(Encoding.ASCII.GetBytes($"${a.Length}\r\n"));
            ms.Write(a);
            ms.Write("\r\n"u8);
        }
        return ms.ToArray();
    }

    public void SendRaw(byte[] bytes) => _socket.Send(bytes);

    public void SendRaw(string text) => SendRaw(Encoding.UTF8.GetBytes(text));

    public void Send(params string[] args) => SendRaw(Encode(args));

    /// <summary>Sends a command and returns its reply's raw bytes as a string (Latin-1, so every byte shows).</summary>
    public string Call(params string[] args)
    {
        Send(args);
        return ReadReply();
    }

    public string Call(params byte[][] args)
    {
        SendRaw(Encode(args));
        return ReadReply();
    }

    /// <summary>Reads one complete reply and returns its bytes as a Latin-1 string ("+OK\r\n").</summary>
    public string ReadReply() => Encoding.Latin1.GetString(ReadReplyBytes());

    /// <summary>Reads one reply, or returns null when none starts arriving within <paramref name="timeoutMs"/>.</summary>
    public string? TryReadReply(int timeoutMs)
    {
        if (_end == _start)
        {
            int saved = _socket.ReceiveTimeout;
            _socket.ReceiveTimeout = timeoutMs;
            try
            {
                _start = _end = 0; // nothing buffered: a timeout below must leave it empty, not replay old bytes
                _end = _socket.Receive(_buffer);
                if (_end == 0) return null;
            }
            catch (SocketException)
            {
                return null;
            }
            finally
            {
                _socket.ReceiveTimeout = saved;
            }
        }
        return ReadReply();
    }

    public byte[] ReadReplyBytes()
    {
        var sb = new MemoryStream();
        ReadValue(sb);
        return sb.ToArray();
    }

    /// <summary>True when the server has closed the connection (reads 0 bytes before the timeout).</summary>
    public bool IsClosedByServer(int timeoutMs = 5000)
    {
        if (_end > _start) return false;
        _socket.ReceiveTimeout = timeoutMs;
        try
        {
            return _socket.Receive(_buffer, 0, 1, SocketFlags.None) == 0;
        }
        catch (SocketException)
        {
            return true;
        }
    }

    /// <summary>True when the server closes the connection within <paramref name="timeoutMs"/>; false when it stays open (silent) that long.</summary>
    public bool ClosedWithin(int timeoutMs)
    {
        if (_end > _start) return false;
        _socket.ReceiveTimeout = timeoutMs;
        try
        {
            return _socket.Receive(_buffer, 0, 1, SocketFlags.None) == 0;
        }
        catch (SocketException ex) when (ex.SocketErrorCode is SocketError.TimedOut or SocketError.WouldBlock)
        {
            return false;
        }
        catch (SocketException)
        {
            return true;
        }
    }

    /// <summary>
    /// Copies one whole reply into <paramref name="into"/>. A loop, not recursion: a script's reply
    /// can nest 8000 deep (Redis's Lua stack limit), deeper than a test thread's stack allows.
    /// </summary>
    private void ReadValue(MemoryStream into)
    {
        for (long pending = 1; pending > 0; pending--)
        {
            string line = ReadLine(into);
            switch (line[0])
            {
                case '+': case '-': case ':': case '_': case ',': case '#': case '(':
                    break;
                case '$': case '=': case '!':
                    {
                        long n = long.Parse(line.AsSpan(1));
                        if (n >= 0) ReadExact(into, n + 2);
                        break;
                    }
                case '*': case '~': case '>':
                    {
                        long n = long.Parse(line.AsSpan(1));
                        if (n > 0) pending += n;
                        break;
                    }
                case '%': case '|':
                    {
                        long n = long.Parse(line.AsSpan(1));
                        if (n > 0) pending += 2 * n;
                        break;
                    }
                default:
                    throw new InvalidDataException($"unexpected reply line: {line}");
            }
        }
    }

    private string ReadLine(MemoryStream into)
    {
        var line = new StringBuilder();
        while (true)
        {
            if (_start == _end) Fill();
            byte b = _buffer[_start++];
            into.WriteByte(b);
            if (b == '\n' && line.Length > 0 && line[^1] == '\r') return line.ToString(0, line.Length - 1);
            line.Append((char)b);
        }
    }

    private void ReadExact(MemoryStream into, long n)
    {
        while (n > 0)
        {
            if (_start == _end) Fill();
            int take = (int)Math.Min(n, _end - _start);
            into.Write(_buffer, _start, take);
            _start += take;
            n -= take;
        }
    }

    /// <summary>One raw byte of what the server sent (a replication stream, an RDB).</summary>
    public byte ReadByte()
    {
        if (_start == _end) Fill();
        return _buffer[_start++];
    }

    private void Fill()
    {
        _start = 0;
        _end = _socket.Receive(_buffer);
        if (_end == 0) throw new EndOfStreamException("server closed the connection");
    }

    public void Dispose() => _socket.Dispose();
}
