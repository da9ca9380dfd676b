using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace RedisClone.Network;

/// <summary>The tls-* parameters a <see cref="TlsContext"/> is made from (Redis's redisTLSContextConfig).</summary>
internal sealed record TlsSettings(
    string CertFile, string KeyFile, string KeyFilePass, string CaCertFile, string CaCertDir,
    string Protocols, string Ciphers, string Ciphersuites, bool PreferServerCiphers, bool SessionCaching,
    bool AuthClientsOff, bool Replication, bool Cluster);

/// <summary>tls-auth-clients: whether a client must present a certificate signed by a configured CA.</summary>
internal enum TlsClientAuth { No, Yes, Optional }

/// <summary>
/// What the TLS listener needs for each handshake, loaded once from the PEM files: the server's
/// certificate with its key (and the intermediates that follow it in tls-cert-file), the CAs client
/// certificates are checked against, the protocol versions and the cipher suites. Immutable: a
/// CONFIG SET of a tls-* parameter makes a new one (connections that exist keep their session; new
/// ones use the new context), and one that cannot be made leaves the old in place, as Redis's
/// tlsConfigure does.
/// </summary>
/// <remarks>
/// <para>Loading is Redis's order, and each failure is logged with Redis's wording ("Failed to load
/// certificate: FILE: reason", "Failed to load private key: ...", "Failed to configure CA
/// certificate(s) file/directory: ...", "Invalid tls-protocols specified. ...", "Failed to configure
/// ciphers: ..."); the reason is .NET's, not OpenSSL's error string.</para>
/// <para>What .NET's SslStream cannot be told, and so is accepted and reported by CONFIG GET but has no
/// effect: tls-prefer-server-ciphers, tls-session-cache-size and tls-session-cache-timeout (only
/// tls-session-caching, as resumption on or off), tls-dh-params-file (OpenSSL picks the groups), and
/// tls-ciphers written with OpenSSL's keywords and operators (HIGH, !aNULL, @STRENGTH...): a list of
/// plain cipher names is honoured (see <see cref="CipherNames"/>), anything else keeps the defaults
/// with a warning in the log. tls-ca-cert-dir reads every certificate file in the directory (OpenSSL
/// finds them by hashed name; the files do not need those names here).</para>
/// </remarks>
internal sealed class TlsContext
{
    private const string UpdateFailed = "Unable to update TLS configuration. Check server logs.";

    private readonly SslStreamCertificateContext _certificate;
    private readonly X509Certificate2Collection? _authorities;
    private readonly SslProtocols _protocols;
    private readonly CipherSuitesPolicy? _ciphers;
    private readonly bool _resume;

    private TlsContext(SslStreamCertificateContext certificate, X509Certificate2Collection? authorities, SslProtocols protocols,
        CipherSuitesPolicy? ciphers, bool resume)
    {
        _certificate = certificate;
        _authorities = authorities;
        _protocols = protocols;
        _ciphers = ciphers;
        _resume = resume;
    }

    /// <summary>The error CONFIG SET answers when a new context cannot be made (Redis's text).</summary>
    public static string UpdateFailedMessage => UpdateFailed;

    /// <summary>The certificate the server presents (its subject, for tests and the log).</summary>
    public X509Certificate2 Certificate => _certificate.TargetCertificate;

    /// <summary>Loads a context from <paramref name="settings"/>, or logs why not (through <paramref name="warn"/>) and returns null.</summary>
    public static TlsContext? TryCreate(TlsSettings settings, Action<string> warn)
    {
        if (settings.CertFile.Length == 0)
        {
            warn("No tls-cert-file configured!");
            return null;
        }
        if (settings.KeyFile.Length == 0)
        {
            warn("No tls-key-file configured!");
            return null;
        }
        bool needAuthorities = !settings.AuthClientsOff || settings.Cluster || settings.Replication;
        if (needAuthorities && settings.CaCertFile.Length == 0 && settings.CaCertDir.Length == 0)
        {
            warn("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!");
            return null;
        }
        if (!TryParseProtocols(settings.Protocols, out var protocols))
        {
            warn("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
            return null;
        }

        // The certificate file may carry the chain after the server's own certificate, as OpenSSL's
        // use_certificate_chain_file reads it.
        string certPem;
        var chain = new X509Certificate2Collection();
        try
        {
            certPem = File.ReadAllText(settings.CertFile);
            chain.ImportFromPem(certPem);
            if (chain.Count == 0) throw new CryptographicException("no certificate found in the file");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or CryptographicException)
        {
            warn($"Failed to load certificate: {settings.CertFile}: {ex.Message}");
            return null;
        }

        X509Certificate2 server;
        try
        {
            string keyPem = File.ReadAllText(settings.KeyFile);
            server = settings.KeyFilePass.Length > 0
                ? X509Certificate2.CreateFromEncryptedPem(certPem, keyPem, settings.KeyFilePass)
                : X509Certificate2.CreateFromPem(certPem, keyPem);
            if (OperatingSystem.IsWindows())
                server = X509CertificateLoader.LoadPkcs12(server.Export(X509ContentType.Pkcs12), null); // SChannel wants a persisted key
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or CryptographicException or ArgumentException)
        {
            warn($"Failed to load private key: {settings.KeyFile}: {ex.Message}");
            return null;
        }

        X509Certificate2Collection? authorities = null;
        if (settings.CaCertFile.Length > 0 || settings.CaCertDir.Length > 0)
        {
            try
            {
                authorities = LoadAuthorities(settings.CaCertFile, settings.CaCertDir);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or CryptographicException)
            {
                warn($"Failed to configure CA certificate(s) file/directory: {ex.Message}");
                return null;
            }
        }

        CipherSuitesPolicy? ciphers = null;
        if (settings.Ciphers.Length > 0 || settings.Ciphersuites.Length > 0)
        {
            if (!CipherNames.TryBuild(settings.Ciphers, settings.Ciphersuites, warn, out var suites)) return null;
            if (suites != null && OperatingSystem.IsWindows())
                warn("tls-ciphers and tls-ciphersuites cannot be applied on this platform: the defaults are used");
            else if (suites != null && !OperatingSystem.IsWindows())
            {
                try
                {
                    ciphers = new CipherSuitesPolicy(suites);
                }
                catch (PlatformNotSupportedException)
                {
                    warn("tls-ciphers and tls-ciphersuites cannot be applied on this platform: the defaults are used");
                }
            }
        }

        var intermediates = new X509Certificate2Collection();
        for (int i = 1; i < chain.Count; i++) intermediates.Add(chain[i]);
        var context = SslStreamCertificateContext.Create(server, intermediates, offline: true);
        return new TlsContext(context, authorities, protocols, ciphers, settings.SessionCaching);
    }

    /// <summary>
    /// The options for one handshake. tls-auth-clients is read at each accept (as Redis reads it), so
    /// CONFIG SET of it acts on the next connection without making a new context.
    /// </summary>
    public SslServerAuthenticationOptions Options(TlsClientAuth auth)
    {
        var options = new SslServerAuthenticationOptions
        {
            ServerCertificateContext = _certificate,
            EnabledSslProtocols = _protocols,
            CipherSuitesPolicy = _ciphers,
            AllowRenegotiation = false, // Redis sets SSL_OP_NO_CLIENT_RENEGOTIATION
            AllowTlsResume = _resume,
            CertificateRevocationCheckMode = X509RevocationMode.NoCheck,
            ClientCertificateRequired = auth != TlsClientAuth.No,
        };
        if (auth == TlsClientAuth.No) return options;
        var policy = new X509ChainPolicy
        {
            TrustMode = X509ChainTrustMode.CustomRootTrust,
            RevocationMode = X509RevocationMode.NoCheck,
        };
        if (_authorities != null) policy.CustomTrustStore.AddRange(_authorities);
        options.CertificateChainPolicy = policy;
        // yes: a certificate that chains to one of the CAs (OpenSSL's VERIFY_PEER | FAIL_IF_NO_PEER_CERT);
        // optional: none at all passes too, a bad one does not (VERIFY_PEER).
        options.RemoteCertificateValidationCallback = auth == TlsClientAuth.Yes
            ? static (_, _, _, errors) => errors == SslPolicyErrors.None
            : static (_, _, _, errors) => (errors & ~SslPolicyErrors.RemoteCertificateNotAvailable) == SslPolicyErrors.None;
        return options;
    }

    /// <summary>
    /// The options for connecting to a master with tls-replication: the client certificate given
    /// (tls-client-cert-file), else the server's own, as Redis presents; the master's certificate must
    /// chain to one of the CAs (OpenSSL's VERIFY_PEER; Redis does not check the name).
    /// </summary>
    public SslClientAuthenticationOptions ClientOptions(string host, X509Certificate2? clientCertificate)
    {
        var policy = new X509ChainPolicy
        {
            TrustMode = X509ChainTrustMode.CustomRootTrust,
            RevocationMode = X509RevocationMode.NoCheck,
        };
        if (_authorities != null) policy.CustomTrustStore.AddRange(_authorities);
        var options = new SslClientAuthenticationOptions
        {
            TargetHost = host,
            EnabledSslProtocols = _protocols,
            CipherSuitesPolicy = _ciphers,
            CertificateRevocationCheckMode = X509RevocationMode.NoCheck,
            CertificateChainPolicy = policy,
            RemoteCertificateValidationCallback = static (_, _, _, errors)
                => (errors & ~SslPolicyErrors.RemoteCertificateNameMismatch) == SslPolicyErrors.None,
        };
        if (clientCertificate != null) options.ClientCertificates = [clientCertificate];
        else options.ClientCertificateContext = _certificate;
        return options;
    }

    /// <summary>
    /// tls-client-cert-file with tls-client-key-file (and its tls-client-key-file-pass): the
    /// certificate this server presents when it connects out (to a master, to a cluster node); null
    /// when none is configured, and the server's own is presented instead.
    /// </summary>
    public static X509Certificate2? LoadClientCertificate(Server.Config.ConfigRegistry config)
    {
        string certFile = config.Value("tls-client-cert-file");
        if (certFile.Length == 0) return null;
        string keyFile = config.Value("tls-client-key-file"), pass = config.Value("tls-client-key-file-pass");
        return pass.Length > 0
            ? X509Certificate2.CreateFromEncryptedPemFile(certFile, pass, keyFile)
            : X509Certificate2.CreateFromPemFile(certFile, keyFile.Length > 0 ? keyFile : null);
    }

    /// <summary>tls-protocols: space-separated TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (any case); empty means TLSv1.2 and TLSv1.3.</summary>
    private static bool TryParseProtocols(string text, out SslProtocols protocols)
    {
        protocols = SslProtocols.None;
        if (text.Length == 0)
        {
            protocols = SslProtocols.Tls12 | SslProtocols.Tls13;
            return true;
        }
        foreach (string token in text.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
#pragma warning disable SYSLIB0039 // TLS 1.0 and 1.1: allowed because Redis allows them when asked for (OpenSSL may still refuse)
            if (token.Equals("tlsv1", StringComparison.OrdinalIgnoreCase)) protocols |= SslProtocols.Tls;
            else if (token.Equals("tlsv1.1", StringComparison.OrdinalIgnoreCase)) protocols |= SslProtocols.Tls11;
#pragma warning restore SYSLIB0039
            else if (token.Equals("tlsv1.2", StringComparison.OrdinalIgnoreCase)) protocols |= SslProtocols.Tls12;
            else if (token.Equals("tlsv1.3", StringComparison.OrdinalIgnoreCase)) protocols |= SslProtocols.Tls13;
            else return false;
        }
        return protocols != SslProtocols.None;
    }

    /// <summary>Every certificate in the CA file and in each readable file of the CA directory.</summary>
    private static X509Certificate2Collection LoadAuthorities(string file, string directory)
    {
        var authorities = new X509Certificate2Collection();
        if (file.Length > 0)
        {
            authorities.ImportFromPemFile(file);
            if (authorities.Count == 0) throw new CryptographicException($"{file}: no certificate found");
        }
        if (directory.Length > 0)
        {
            if (!Directory.Exists(directory)) throw new DirectoryNotFoundException($"{directory}: No such file or directory");
            foreach (string path in Directory.EnumerateFiles(directory))
            {
                try
                {
                    authorities.ImportFromPemFile(path);
                }
                catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or CryptographicException)
                {
                    // Not a certificate (OpenSSL skips what it cannot use too).
                }
            }
        }
        return authorities;
    }
}
