using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace RedisClone.Tests.Infrastructure;

/// <summary>A RESP client over TLS; the server's certificate must chain to the test CA.</summary>
public sealed class TlsClient : IDisposable
{
    private readonly TcpClient _tcp;
    private readonly SslStream _ssl;

    public TlsClient(int port, X509Certificate2 ca, X509Certificate2? clientCertificate = null,
        SslProtocols protocols = SslProtocols.None, TlsCipherSuite[]? suites = null)
    {
        _tcp = new TcpClient();
        _tcp.Connect(IPAddress.Loopback, port);
        _ssl = new SslStream(_tcp.GetStream());
        _ssl.ReadTimeout = 5_000;
        var options = new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            EnabledSslProtocols = protocols,
            ClientCertificates = clientCertificate == null ? null : [clientCertificate],
            CertificateChainPolicy = new X509ChainPolicy
            {
                TrustMode = X509ChainTrustMode.CustomRootTrust,
                RevocationMode = X509RevocationMode.NoCheck,
                CustomTrustStore = { ca },
            },
            // (No cipher suite policy on Windows, where .NET cannot set one.)
            CipherSuitesPolicy = suites == null || OperatingSystem.IsWindows() ? null : new CipherSuitesPolicy(suites),
        };
        _ssl.AuthenticateAsClient(options);
    }

    public X509Certificate2 ServerCertificate => new(_ssl.RemoteCertificate!);

    public SslProtocols Protocol => _ssl.SslProtocol;

    public TlsCipherSuite CipherSuite => _ssl.NegotiatedCipherSuite;

    /// <summary>Sends one inline command and returns what one read brings back (short replies only).</summary>
    public string Call(string inline)
    {
        _ssl.Write(Encoding.ASCII.GetBytes(inline + "\r\n"));
        var buffer = new byte[4096];
        int n = _ssl.Read(buffer);
        return Encoding.ASCII.GetString(buffer, 0, n);
    }

    public void Send(byte[] bytes) => _ssl.Write(bytes);

    /// <summary>The TLS stream itself, for a test that reads and writes on its own (one reader and one writer at a time).</summary>
    public Stream Stream => _ssl;

    /// <summary>Reads exactly <paramref name="count"/> bytes.</summary>
    public byte[] Read(int count)
    {
        var buffer = new byte[count];
        _ssl.ReadExactly(buffer);
        return buffer;
    }

    /// <summary>True when the server has ended the connection (end of stream or a reset within 5 s).</summary>
    public bool IsClosed()
    {
        try
        {
            return _ssl.Read(new byte[64]) == 0;
        }
        catch (IOException ex) when (ex.InnerException is SocketException { SocketErrorCode: SocketError.TimedOut })
        {
            return false;
        }
        catch (IOException)
        {
            return true;
        }
    }

    public void Dispose()
    {
        _ssl.Dispose();
        _tcp.Dispose();
    }
}
