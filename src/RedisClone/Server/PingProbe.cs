using System.Net;
using System.Net.Sockets;
using System.Text;

namespace RedisClone.Server;

/// <summary>
/// <c>RedisClone --ping [host] [port]</c>: a health check that needs no redis-cli (container images
/// carry only the server). Connects, authenticates when <c>REDISCLI_AUTH</c> holds a password (the
/// variable redis-cli reads, so one setting serves both), sends PING and exits 0 when the answer is
/// <c>+PONG</c>, 1 on anything else: a refused or silent connection, an error such as
/// <c>-LOADING</c> or <c>-NOAUTH</c>, or no answer within the timeout. The server's reply (or what
/// went wrong) is printed, so <c>docker inspect</c> shows why a check failed.
/// </summary>
internal static class PingProbe
{
    public const string DefaultHost = "127.0.0.1";
    public const int DefaultPort = 6379;

    /// <summary>The whole probe (resolve, connect, every reply) must finish within this.</summary>
    public static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    /// <summary>The environment variable holding the password (redis-cli's name for it).</summary>
    public const string PasswordVariable = "REDISCLI_AUTH";

    /// <summary>Runs the probe with the arguments after <c>--ping</c>; returns the exit code.</summary>
    public static int Run(ReadOnlySpan<string> args)
    {
        if (args.Length > 2)
        {
            Console.Error.WriteLine("Usage: RedisClone --ping [host] [port]   (password, if any, in REDISCLI_AUTH)");
            return 2;
        }
        string host = args.Length > 0 ? args[0] : DefaultHost;
        int port = DefaultPort;
        if (args.Length > 1 && (!int.TryParse(args[1], out port) || port is < 1 or > 65535))
        {
            Console.Error.WriteLine($"Invalid port '{args[1]}'");
            return 2;
        }
        string? password = Environment.GetEnvironmentVariable(PasswordVariable);
        try
        {
            string reply = Ping(host, port, string.IsNullOrEmpty(password) ? null : password);
            if (reply == "+PONG")
            {
                Console.WriteLine("PONG");
                return 0;
            }
            Console.Error.WriteLine($"{host}:{port}: {reply.TrimStart('+', '-')}");
            return 1;
        }
        catch (Exception ex) when (ex is SocketException or IOException or OperationCanceledException or TimeoutException)
        {
            Console.Error.WriteLine($"{host}:{port}: {(ex is OperationCanceledException ? "no answer in " + Timeout.TotalSeconds + " s" : ex.Message)}");
            return 1;
        }
    }

    /// <summary>
    /// The first line of PING's reply (AUTH's instead when AUTH is refused). Throws on a network
    /// failure or when <see cref="Timeout"/> passes.
    /// </summary>
    private static string Ping(string host, int port, string? password)
    {
        using var cts = new CancellationTokenSource(Timeout);
        IPAddress[] addresses = IPAddress.TryParse(host, out var literal)
            ? [literal]
            : Dns.GetHostAddressesAsync(host, cts.Token).GetAwaiter().GetResult();
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.ConnectAsync(addresses, port, cts.Token).AsTask().GetAwaiter().GetResult();

        var request = new StringBuilder();
        if (password != null) AppendCommand(request, "AUTH", password);
        AppendCommand(request, "PING");
        socket.SendAsync(Encoding.UTF8.GetBytes(request.ToString()), SocketFlags.None, cts.Token).AsTask().GetAwaiter().GetResult();

        var reader = new LineReader(socket, cts.Token);
        if (password != null)
        {
            string auth = reader.ReadLine();
            if (auth != "+OK") return auth;
        }
        return reader.ReadLine();
    }

    /// <summary>A command as a RESP array of bulk strings (so a password with spaces or quotes goes as it is).</summary>
    private static void AppendCommand(StringBuilder sb, params string[] parts)
    {
        sb.Append('*').Append(parts.Length).Append("\r\n");
        foreach (var p in parts)
            sb.Append('$').Append(Encoding.UTF8.GetByteCount(p)).Append("\r\n").Append(p).Append("\r\n");
    }

    /// <summary>Reads CRLF-terminated lines from the socket; a closed connection before the line ends is an IOException.</summary>
    private sealed class LineReader(Socket socket, CancellationToken token)
    {
        private readonly byte[] _buffer = new byte[4096];
        private int _start;
        private int _end;

        public string ReadLine()
        {
            while (true)
            {
                int lf = Array.IndexOf(_buffer, (byte)'\n', _start, _end - _start);
                if (lf >= 0)
                {
                    int end = lf > _start && _buffer[lf - 1] == '\r' ? lf - 1 : lf;
                    string line = Encoding.UTF8.GetString(_buffer, _start, end - _start);
                    _start = lf + 1;
                    return line;
                }
                if (_start > 0)
                {
                    Buffer.BlockCopy(_buffer, _start, _buffer, 0, _end - _start);
                    _end -= _start;
                    _start = 0;
                }
                if (_end == _buffer.Length) throw new IOException("reply line too long");
                int n = socket.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None, token).AsTask().GetAwaiter().GetResult();
                if (n == 0) throw new IOException("connection closed by the server");
                _end += n;
            }
        }
    }
}
