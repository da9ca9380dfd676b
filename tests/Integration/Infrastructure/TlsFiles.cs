using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// Certificates made for one test class: a CA, a server certificate for 127.0.0.1 and localhost, a
/// second server certificate (to see a reload), a client certificate signed by the CA and one signed
/// by a CA the server does not know. PEM files in a directory of their own; ECDSA P-256 keys.
/// </summary>
public sealed class TlsFiles : IDisposable
{
    public const string KeyPassword = "s3cret pass";

    public TlsFiles()
    {
        Dir = Directory.CreateTempSubdirectory("redisclone-tls-").FullName;
        using var caKey = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        Ca = MakeCa("RedisClone Test CA", caKey);
        Write("ca.crt", Ca.ExportCertificatePem());
        (ServerCert, _) = Issue("server", "localhost", Ca, caKey, server: true);
        (SecondServerCert, _) = Issue("server2", "second.localhost", Ca, caKey, server: true);
        Issue("client", "client", Ca, caKey, server: false);
        using var otherKey = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        using var other = MakeCa("Unknown CA", otherKey);
        Issue("stranger", "stranger", other, otherKey, server: false);
        Directory.CreateDirectory(Path("cadir"));
        File.Copy(Path("ca.crt"), Path("cadir/anything.pem"));
        File.WriteAllText(Path("cadir/readme.txt"), "not a certificate");
    }

    public string Dir { get; }
    public X509Certificate2 Ca { get; }
    public X509Certificate2 ServerCert { get; }
    public X509Certificate2 SecondServerCert { get; }

    public string Path(string name) => System.IO.Path.Combine(Dir, name);

    /// <summary>The server options for TLS on <paramref name="tlsPort"/> with this directory's files.</summary>
    public string[] ServerArgs(int tlsPort, string authClients = "yes") =>
    [
        "--tls-port", tlsPort.ToString(), "--tls-cert-file", Path("server.crt"), "--tls-key-file", Path("server.key"),
        "--tls-ca-cert-file", Path("ca.crt"), "--tls-auth-clients", authClients,
    ];

    /// <summary>A certificate with its key, as a client presents it.</summary>
    public X509Certificate2 ClientCertificate(string name = "client")
        => X509Certificate2.CreateFromPemFile(Path(name + ".crt"), Path(name + ".key"));

    private static X509Certificate2 MakeCa(string name, ECDsa key)
    {
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, false));
        return request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(30));
    }

    private (X509Certificate2 Cert, ECDsa Key) Issue(string file, string cn, X509Certificate2 ca, ECDsa caKey, bool server)
    {
        var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={cn}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, false));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature, true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension(
            [new Oid(server ? "1.3.6.1.5.5.7.3.1" : "1.3.6.1.5.5.7.3.2")], false));
        if (server)
        {
            var names = new SubjectAlternativeNameBuilder();
            names.AddIpAddress(IPAddress.Loopback);
            names.AddDnsName("localhost");
            request.CertificateExtensions.Add(names.Build());
        }
        var serial = RandomNumberGenerator.GetBytes(12);
        serial[0] &= 0x7f;
        var cert = request.Create(ca.SubjectName, X509SignatureGenerator.CreateForECDsa(caKey),
            DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(29), serial);
        Write(file + ".crt", cert.ExportCertificatePem());
        Write(file + ".key", key.ExportPkcs8PrivateKeyPem());
        Write(file + ".enc.key", key.ExportEncryptedPkcs8PrivateKeyPem(KeyPassword,
            new PbeParameters(PbeEncryptionAlgorithm.Aes256Cbc, HashAlgorithmName.SHA256, 10_000)));
        return (cert, key);
    }

    private void Write(string name, string pem) => File.WriteAllText(Path(name), pem);

    public void Dispose()
    {
        try { Directory.Delete(Dir, recursive: true); } catch (IOException) { }
    }
}
