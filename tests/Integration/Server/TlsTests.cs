using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using RedisClone.Server;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Server;

/// <summary>
/// TLS (issue 17): tls-port beside the plain port or alone, certificates from PEM files, client
/// certificates checked against the CA (tls-auth-clients yes/optional/no), tls-protocols and cipher
/// suites, start-up failures with Redis's log lines, and CONFIG SET reloading the context for new
/// connections while a bad file keeps the old. Clients: a raw SslStream, redis-cli --tls and
/// StackExchange.Redis with ssl=true.
/// </summary>
public sealed class TlsTests : IClassFixture<TlsFiles>
{
    private readonly TlsFiles _files;

    public TlsTests(TlsFiles files) => _files = files;

    /// <summary>
    /// A server with both ports. The plain port is picked here: port 0 with a tls-port means TLS
    /// only, as in Redis (TestServer's port 0 takes any free port only when there is no tls-port).
    /// </summary>
    private TestServer Start(int tlsPort, string authClients = "no", params string[] more)
        => TestServer.Start(1, ["--port", ReferenceRedis.FreePort().ToString(), .. _files.ServerArgs(tlsPort, authClients), .. more]);

    /// <summary>True when a handshake with these settings is refused (by the server's alert, a reset or a close).</summary>
    private static bool HandshakeFails(Func<TlsClient> connect)
    {
        try
        {
            using var c = connect();
            // TLS 1.3: the client finishes before the server has checked its certificate; the
            // refusal arrives with the first read.
            return !c.Call("PING").StartsWith("+PONG", StringComparison.Ordinal);
        }
        catch (Exception ex) when (ex is AuthenticationException or IOException or SocketException)
        {
            return true;
        }
    }

    [Fact]
    public async Task Tls_PlainAndTlsPorts_ServedTogether()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort);
        Assert.Equal(tlsPort, server.Server.TlsPort);
        using (var tls = new TlsClient(tlsPort, _files.Ca))
        {
            Assert.Equal("+PONG\r\n", tls.Call("PING"));
            Assert.Equal("+OK\r\n", tls.Call("SET tls:k from-tls"));
            Assert.Equal("CN=localhost", tls.ServerCertificate.Subject);
            Assert.Equal(SslProtocols.Tls13, tls.Protocol);
        }
        using var plain = server.Connect();
        Assert.Equal("$8\r\nfrom-tls\r\n", plain.Call("GET", "tls:k"));
        // The TLS port speaks only TLS: plain RESP there gets no reply.
        using var wrong = new RespClient(new IPEndPoint(IPAddress.Loopback, tlsPort), 2000);
        wrong.SendRaw("PING\r\n");
        Assert.Null(wrong.TryReadReply(1000));
    }

    [Fact]
    public async Task Tls_PortZero_ServesTlsOnly()
    {
        int tlsPort = ReferenceRedis.FreePort();
        var args = new List<string> { "--port", "0", "--bind", "127.0.0.1", "--shards", "1", "--save", "" };
        args.AddRange(_files.ServerArgs(tlsPort, "no"));
        await using var server = new RedisServer(ServerOptions.Parse([.. args]));
        server.Start();
        Assert.Equal(0, server.Port);
        using var tls = new TlsClient(tlsPort, _files.Ca);
        Assert.Equal("+PONG\r\n", tls.Call("PING"));
        // INFO's tcp_port shows the TLS port when there is no plain one, as Redis's does.
        string info = tls.Call("INFO server");
        Assert.Contains($"tcp_port:{tlsPort}\r\n", info);
        Assert.Contains($"listener2:name=tls,bind=127.0.0.1,port={tlsPort}\r\n", info);
        Assert.DoesNotContain("listener0", info);
    }

    [RedisCliFact]
    public async Task Tls_RedisCli_PingSetGet()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort);
        string cli = $"--tls --cacert {_files.Path("ca.crt")} -h 127.0.0.1 -p {tlsPort}";
        Assert.Equal((0, "PONG\n"), ToolRunner.Run(ReferenceRedis.CliPath!, $"{cli} PING"));
        Assert.Equal((0, "OK\n"), ToolRunner.Run(ReferenceRedis.CliPath!, $"{cli} SET tls:cli hello"));
        Assert.Equal((0, "hello\n"), ToolRunner.Run(ReferenceRedis.CliPath!, $"{cli} GET tls:cli"));
        // Without the CA the server's certificate is not trusted: redis-cli refuses.
        Assert.NotEqual("PONG\n", ToolRunner.Run(ReferenceRedis.CliPath!, $"--tls -h 127.0.0.1 -p {tlsPort} PING").Output);
    }

    [RedisCliFact]
    public async Task Tls_AuthClientsYes_NeedsCertificateFromTheCa()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "yes");
        string cli = $"--tls --cacert {_files.Path("ca.crt")} -h 127.0.0.1 -p {tlsPort}";
        string client = $"--cert {_files.Path("client.crt")} --key {_files.Path("client.key")}";
        Assert.Equal((0, "PONG\n"), ToolRunner.Run(ReferenceRedis.CliPath!, $"{cli} {client} PING"));
        Assert.NotEqual("PONG\n", ToolRunner.Run(ReferenceRedis.CliPath!, $"{cli} PING").Output);

        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca)));
        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca, _files.ClientCertificate("stranger"))));
        using var ok = new TlsClient(tlsPort, _files.Ca, _files.ClientCertificate());
        Assert.Equal("+PONG\r\n", ok.Call("PING"));

        // redis-server with the same files lets in and keeps out the same clients.
        int refTls = ReferenceRedis.FreePort();
        using var reference = ReferenceRedis.StartOrNull(string.Join(' ', _files.ServerArgs(refTls, "yes")));
        if (reference == null) return;
        string refCli = $"--tls --cacert {_files.Path("ca.crt")} -h 127.0.0.1 -p {refTls}";
        Assert.Equal((0, "PONG\n"), ToolRunner.Run(ReferenceRedis.CliPath!, $"{refCli} {client} PING"));
        Assert.NotEqual("PONG\n", ToolRunner.Run(ReferenceRedis.CliPath!, $"{refCli} PING").Output);
        Assert.True(HandshakeFails(() => new TlsClient(refTls, _files.Ca)));
        Assert.True(HandshakeFails(() => new TlsClient(refTls, _files.Ca, _files.ClientCertificate("stranger"))));
        using var refOk = new TlsClient(refTls, _files.Ca, _files.ClientCertificate());
        Assert.Equal("+PONG\r\n", refOk.Call("PING"));
    }

    [Fact]
    public async Task Tls_ClientKillAndTimeout_CloseTlsClients()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "no", "--timeout", "1");
        using var killed = new TlsClient(tlsPort, _files.Ca);
        string id = killed.Call("CLIENT ID").Trim().TrimStart(':');
        using var idle = new TlsClient(tlsPort, _files.Ca);
        Assert.Equal("+PONG\r\n", idle.Call("PING"));
        using var admin = server.Connect();
        Assert.Equal(":1\r\n", admin.Call("CLIENT", "KILL", "ID", id));
        Assert.True(killed.IsClosed());
        // Idle past timeout: closed by the server like a plain client.
        Thread.Sleep(2500);
        Assert.True(idle.IsClosed());
        using var fresh = new TlsClient(tlsPort, _files.Ca);
        Assert.Equal("+PONG\r\n", fresh.Call("PING"));
    }

    [Fact]
    public async Task Tls_PipelinedBigRepliesThenQuit_AllArriveThenClose()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort);
        var value = new string('t', 300_000);
        using var c = new TlsClient(tlsPort, _files.Ca);
        c.Send(RespClient.Encode("SET", "tls:big", value));
        Assert.Equal("+OK\r\n", Encoding.ASCII.GetString(c.Read(5)));
        var batch = new MemoryStream();
        for (int i = 0; i < 20; i++) batch.Write(RespClient.Encode("GET", "tls:big")); // 6 MB of replies
        batch.Write(RespClient.Encode("QUIT"));
        c.Send(batch.ToArray());
        string expected = $"${value.Length}\r\n{value}\r\n";
        for (int i = 0; i < 20; i++) Assert.Equal(expected, Encoding.ASCII.GetString(c.Read(expected.Length)));
        Assert.Equal("+OK\r\n", Encoding.ASCII.GetString(c.Read(5)));
        Assert.True(c.IsClosed());
    }

    [Fact]
    public async Task Tls_ClientNotReadingItsReplies_OmemShownThenKilled()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort);
        using var admin = server.Connect();
        Assert.Equal("+OK\r\n", admin.Call("SET", "tls:v", new string('v', 64 * 1024)));
        using var c = new TlsClient(tlsPort, _files.Ca);
        string id = c.Call("CLIENT ID").Trim().TrimStart(':');
        var batch = new MemoryStream();
        for (int i = 0; i < 300; i++) batch.Write(RespClient.Encode("GET", "tls:v")); // 20 MB, never read
        var sender = Task.Run(() =>
        {
            try { c.Send(batch.ToArray()); }
            catch (Exception) { /* closed by the kill */ }
        });
        long omem = 0;
        await Eventually.WaitFor(() =>
        {
            string line = admin.Call("CLIENT", "LIST", "ID", id);
            omem = long.Parse(line.Split(' ').First(f => f.StartsWith("omem=", StringComparison.Ordinal))[5..]);
            return omem > 0;
        }, () => $"omem={omem} for a TLS client that does not read 20 MB of replies");
        Assert.Equal(":1\r\n", admin.Call("CLIENT", "KILL", "ID", id));
        await Eventually.WaitFor(() => !admin.Call("CLIENT", "LIST").Contains($"id={id} "), () => "the killed client is still listed");
        await sender.WaitAsync(TimeSpan.FromSeconds(10));
    }

    /// <summary>
    /// CLIENT LIST's qbuf for a TLS client: the decrypted bytes of a command not yet complete (an
    /// inline one without its line end: all of it, as redis-server shows for a plain client), then
    /// nothing once it ran; qbuf-free and client_recent_max_input_buffer count the input buffer.
    /// </summary>
    [Fact]
    public async Task Tls_PartialCommand_QbufShowsItsBytes()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort);
        using var admin = server.Connect();
        using var c = new TlsClient(tlsPort, _files.Ca);
        string id = c.Call("CLIENT ID").Trim().TrimStart(':');
        string request = "SET tls:qbuf " + new string('v', 20_000);
        c.Send(Encoding.ASCII.GetBytes(request));
        Dictionary<string, string> Fields() => admin.Call("CLIENT", "LIST", "ID", id).Split("\r\n")[1].Trim()
            .Split(' ').Select(p => p.Split('=', 2)).ToDictionary(kv => kv[0], kv => kv[1]);
        Dictionary<string, string>? f = null;
        await Eventually.WaitFor(() => (f = Fields())["qbuf"] == request.Length.ToString(),
            () => $"qbuf={f?["qbuf"]} for a TLS client that sent {request.Length} bytes of an inline command");
        Assert.True(long.Parse(f!["qbuf-free"]) > 0, $"qbuf-free={f["qbuf-free"]}");
        string info = admin.Call("INFO", "clients");
        long maxInput = long.Parse(info.Split("\r\n").First(l => l.StartsWith("client_recent_max_input_buffer:"))[31..]);
        Assert.True(maxInput >= request.Length, $"client_recent_max_input_buffer:{maxInput}");

        c.Send("\r\n"u8.ToArray());
        Assert.Equal("+OK\r\n", Encoding.ASCII.GetString(c.Read(5)));
        Assert.Equal("0", Fields()["qbuf"]);
    }

    [Fact]
    public async Task Tls_AuthClientsOptional_NoCertificateOrOneFromTheCa()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "optional");
        using (var none = new TlsClient(tlsPort, _files.Ca))
            Assert.Equal("+PONG\r\n", none.Call("PING"));
        using (var good = new TlsClient(tlsPort, _files.Ca, _files.ClientCertificate()))
            Assert.Equal("+PONG\r\n", good.Call("PING"));
        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca, _files.ClientCertificate("stranger"))));
    }

    [Fact]
    public async Task Tls_ConfigSetAuthClients_AppliesToNextConnection()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "no");
        using var admin = server.Connect();
        using var before = new TlsClient(tlsPort, _files.Ca);
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-auth-clients", "yes"));
        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca)));
        Assert.Equal("+PONG\r\n", before.Call("PING")); // an established session is not affected
    }

    [Fact]
    public async Task Tls_StackExchangeRedis_SslWithValidationCallback()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "yes");
        var options = new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", tlsPort } },
            Ssl = true,
            SslHost = "localhost",
            AbortOnConnectFail = true,
            ConnectTimeout = 10_000,
        };
        options.CertificateSelection += (_, _, _, _, _) => _files.ClientCertificate();
        options.CertificateValidation += (_, certificate, _, _) =>
        {
            using var chain = new X509Chain();
            chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
            chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
            chain.ChainPolicy.CustomTrustStore.Add(_files.Ca);
            return certificate != null && chain.Build(new X509Certificate2(certificate));
        };
        await using var mux = await ConnectionMultiplexer.ConnectAsync(options);
        var db = mux.GetDatabase();
        await db.StringSetAsync("tls:se", "over tls");
        Assert.Equal("over tls", (string?)await db.StringGetAsync("tls:se"));
        Assert.Equal(42, await db.StringIncrementAsync("tls:se:n", 42));
    }

    [Fact]
    public async Task Tls_EncryptedKeyAndCaDirectory_Load()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = TestServer.Start(1, "--tls-port", tlsPort.ToString(),
            "--tls-cert-file", _files.Path("server.crt"), "--tls-key-file", _files.Path("server.enc.key"),
            "--tls-key-file-pass", TlsFiles.KeyPassword, "--tls-ca-cert-dir", _files.Path("cadir"));
        using var c = new TlsClient(tlsPort, _files.Ca, _files.ClientCertificate());
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public async Task Tls_Protocols_OnlyTheListedVersions()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "no", "--tls-protocols", "TLSv1.2");
        using (var c = new TlsClient(tlsPort, _files.Ca))
            Assert.Equal(SslProtocols.Tls12, c.Protocol);
        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca, protocols: SslProtocols.Tls13)));

        using var admin = server.Connect();
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-protocols", "tlsv1.3"));
        using (var c = new TlsClient(tlsPort, _files.Ca))
            Assert.Equal(SslProtocols.Tls13, c.Protocol);
        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca, protocols: SslProtocols.Tls12)));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - Unable to update TLS configuration. Check server logs.\r\n",
            admin.Call("CONFIG", "SET", "tls-protocols", "TLSv9"));
        Assert.Equal("*2\r\n$13\r\ntls-protocols\r\n$7\r\ntlsv1.3\r\n", admin.Call("CONFIG", "GET", "tls-protocols"));
    }

    [Fact]
    public async Task Tls_Ciphersuites_AndOpenSslCipherNames_Honoured()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "no", "--tls-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256",
            "--tls-ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256");
        using (var c = new TlsClient(tlsPort, _files.Ca))
        {
            Assert.Equal(SslProtocols.Tls13, c.Protocol);
            Assert.Equal(TlsCipherSuite.TLS_CHACHA20_POLY1305_SHA256, c.CipherSuite);
        }
        using (var c = new TlsClient(tlsPort, _files.Ca, protocols: SslProtocols.Tls12))
            Assert.Equal(TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, c.CipherSuite);
        // A client offering none of them cannot connect.
        Assert.True(HandshakeFails(() => new TlsClient(tlsPort, _files.Ca, protocols: SslProtocols.Tls13,
            suites: [TlsCipherSuite.TLS_AES_256_GCM_SHA384])));

        using var admin = server.Connect();
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-ciphersuites", "TLS_AES_256_GCM_SHA384"));
        using (var c = new TlsClient(tlsPort, _files.Ca))
            Assert.Equal(TlsCipherSuite.TLS_AES_256_GCM_SHA384, c.CipherSuite);
        Assert.StartsWith("-ERR CONFIG SET failed (possibly related to argument 'tls-ciphersuites')",
            admin.Call("CONFIG", "SET", "tls-ciphersuites", "NOT_A_SUITE"));
    }

    [RedisFact]
    public async Task ConfigSet_TlsCertFile_NewConnectionsUseIt_BadFileKeepsOld()
    {
        int tlsPort = ReferenceRedis.FreePort();
        await using var server = Start(tlsPort, "no");
        using var admin = server.Connect();
        using var old = new TlsClient(tlsPort, _files.Ca);
        Assert.Equal("CN=localhost", old.ServerCertificate.Subject);

        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-cert-file", _files.Path("server2.crt"),
            "tls-key-file", _files.Path("server2.key")));
        using (var c = new TlsClient(tlsPort, _files.Ca))
            Assert.Equal("CN=second.localhost", c.ServerCertificate.Subject);
        Assert.Equal("+PONG\r\n", old.Call("PING"));

        // A file that is not there: Redis's reply, and nothing changes.
        string missing = _files.Path("missing.crt");
        string reply = admin.Call("CONFIG", "SET", "tls-cert-file", missing);
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs.\r\n", reply);
        Assert.Equal($"*2\r\n$13\r\ntls-cert-file\r\n${_files.Path("server2.crt").Length}\r\n{_files.Path("server2.crt")}\r\n",
            admin.Call("CONFIG", "GET", "tls-cert-file"));
        using (var c = new TlsClient(tlsPort, _files.Ca))
            Assert.Equal("CN=second.localhost", c.ServerCertificate.Subject);
        // A key that does not match the certificate is refused too.
        Assert.StartsWith("-ERR CONFIG SET failed (possibly related to argument 'tls-key-file')",
            admin.Call("CONFIG", "SET", "tls-key-file", _files.Path("client.key")));

        // redis-server answers the same to the same mistake.
        int refTls = ReferenceRedis.FreePort();
        using var reference = ReferenceRedis.StartOrNull(string.Join(' ', _files.ServerArgs(refTls, "no")));
        Assert.NotNull(reference);
        using var r = reference!.Connect();
        Assert.Equal(reply, r.Call("CONFIG", "SET", "tls-cert-file", missing));
    }

    [Fact]
    public async Task ConfigSet_TlsPort_MovesTheListener()
    {
        int first = ReferenceRedis.FreePort(), second = ReferenceRedis.FreePort();
        await using var server = Start(first, "no");
        using var admin = server.Connect();
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-port", second.ToString()));
        using (var c = new TlsClient(second, _files.Ca))
            Assert.Equal("+PONG\r\n", c.Call("PING"));
        Assert.Throws<SocketException>(() => new TlsClient(first, _files.Ca));
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-port", "0"));
        Assert.Throws<SocketException>(() => new TlsClient(second, _files.Ca));
        Assert.Equal(0, server.Server.TlsPort);
        // A port that is taken: Redis's error, no listener changes.
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to listen on this port. Check server logs.\r\n",
            admin.Call("CONFIG", "SET", "tls-port", server.Port.ToString()));
    }

    [Fact]
    public async Task ConfigSet_TlsPortOnPlainServer_TurnsTlsOn()
    {
        await using var server = TestServer.Start(1, "--tls-cert-file", _files.Path("server.crt"),
            "--tls-key-file", _files.Path("server.key"), "--tls-auth-clients", "no");
        Assert.Null(server.Server.Tls);
        using var admin = server.Connect();
        int tlsPort = ReferenceRedis.FreePort();
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "tls-port", tlsPort.ToString()));
        using var c = new TlsClient(tlsPort, _files.Ca);
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Theory]
    [InlineData("cert", "Failed to load certificate: ")]
    [InlineData("key", "Failed to load private key: ")]
    [InlineData("ca", "Failed to configure CA certificate(s) file/directory: ")]
    [InlineData("noca", "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, tls-replication or tls-auth-clients are enabled!")]
    [InlineData("nocert", "No tls-cert-file configured!")]
    [InlineData("protocols", "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")]
    public async Task Start_BadTlsConfig_FailsWithRedisLogLines(string broken, string expected)
    {
        int tlsPort = ReferenceRedis.FreePort();
        string missing = _files.Path("does-not-exist.pem");
        var tls = new Dictionary<string, string>
        {
            ["--tls-cert-file"] = _files.Path("server.crt"), ["--tls-key-file"] = _files.Path("server.key"),
            ["--tls-ca-cert-file"] = _files.Path("ca.crt"),
        };
        switch (broken)
        {
            case "cert": tls["--tls-cert-file"] = missing; break;
            case "key": tls["--tls-key-file"] = missing; break;
            case "ca": tls["--tls-ca-cert-file"] = missing; break;
            case "noca": tls.Remove("--tls-ca-cert-file"); break;
            case "nocert": tls.Remove("--tls-cert-file"); break;
            case "protocols": tls["--tls-protocols"] = "TLSv1.2 SSLv3"; break;
        }
        string dir = Directory.CreateTempSubdirectory("redisclone-tls-log-").FullName;
        string log = Path.Combine(dir, "server.log");
        var args = new List<string> { "--port", "0", "--bind", "127.0.0.1", "--shards", "1", "--save", "", "--dir", dir,
            "--logfile", log, "--tls-port", tlsPort.ToString() };
        foreach (var (name, value) in tls) args.AddRange([name, value]);
        var server = new RedisServer(ServerOptions.Parse([.. args]));
        Assert.Throws<TlsConfigException>(server.Start);
        await server.StopAsync();
        string text = File.ReadAllText(log);
        Assert.Contains(expected, text);
        Assert.Contains("Failed to configure TLS. Check logs for more info.", text);
        // Nothing listens on the TLS port.
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        Assert.Throws<SocketException>(() => probe.Connect(IPAddress.Loopback, tlsPort));

        // redis-server exits with the same lines.
        if (ReferenceRedis.ServerPath is { } redis)
        {
            var refArgs = new StringBuilder($"--port 0 --save \"\" --tls-port {ReferenceRedis.FreePort()}");
            foreach (var (name, value) in tls) refArgs.Append($" {name} \"{value}\"");
            var (code, output) = ToolRunner.Run(redis, refArgs.ToString(), timeoutMs: 10_000);
            Assert.Equal(1, code);
            Assert.Contains(expected, output);
            Assert.Contains("Failed to configure TLS. Check logs for more info.", output);
        }
        Directory.Delete(dir, recursive: true);
    }

    [RedisFact]
    public async Task ConfigGet_TlsParameters_SameAsRedis()
    {
        await using var server = TestServer.Start(1);
        using var ours = server.Connect();
        using var reference = ReferenceRedis.StartOrNull();
        using var theirs = reference!.Connect();
        foreach (var c in new[] { ours, theirs })
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "tls-ciphers", "HIGH:!aNULL", "tls-session-cache-size", "100",
                "tls-auth-clients", "OPTIONAL", "tls-prefer-server-ciphers", "yes"));
        Assert.Equal(Pairs(theirs.Call("CONFIG", "GET", "tls-*")), Pairs(ours.Call("CONFIG", "GET", "tls-*")));
        Assert.Equal(theirs.Call("CONFIG", "SET", "tls-auth-clients", "maybe"), ours.Call("CONFIG", "SET", "tls-auth-clients", "maybe"));
        Assert.Equal(theirs.Call("CONFIG", "SET", "tls-port", "70000"), ours.Call("CONFIG", "SET", "tls-port", "70000"));
    }

    /// <summary>A CONFIG GET reply as name → value, sorted (Redis's order is its dictionary's).</summary>
    private static SortedDictionary<string, string> Pairs(string reply)
    {
        var lines = reply.Split("\r\n");
        var result = new SortedDictionary<string, string>(StringComparer.Ordinal);
        // *N, then $len/name, $len/value pairs
        for (int i = 1; i + 3 < lines.Length; i += 4) result[lines[i + 1]] = lines[i + 3];
        return result;
    }
}
