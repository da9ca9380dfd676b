using System.Diagnostics;
using RedisClone.Server;
using RedisClone.Server.Config;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// Start-up configuration as redis-server reads it: a config file (redis.conf syntax, include),
/// standard input, command-line options, their order, the fatal-error report, -v/-h, and CONFIG
/// REWRITE of the file. Start-up errors are compared with redis-server's own output.
/// </summary>
public sealed class ConfigFileTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("redisclone-conf-").FullName;

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    private string Write(string name, string text)
    {
        string path = Path.Combine(_dir, name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, text);
        return path;
    }

    private static TestServer StartWith(string configFile, params string[] extra)
        => TestServer.StartWithConfig(configFile, extra);

    [Fact]
    public async Task ConfigFile_UnitsQuotingAliasesAndInclude_Applied()
    {
        Write("conf.d/b.conf", "hz 7\n");
        Write("conf.d/a.conf", "hz 6\nnotify-keyspace-events \"KEA\"\n");
        string path = Write("main.conf", """
            # a comment, then a blank line

            MAXMEMORY 1gb
              maxmemory-samples 7   
            hash-max-ziplist-entries 99
            proto-max-bulk-len 2mb
            include conf.d/*.conf
            set-max-intset-entries '400'
            set-max-intset-entries 300
            """.Replace("conf.d/", Path.Combine(_dir, "conf.d") + "/"));
        await using var server = StartWith(path);
        using var c = server.Connect();
        Assert.Equal("*2\r\n$9\r\nmaxmemory\r\n$10\r\n1073741824\r\n", c.Call("CONFIG", "GET", "maxmemory"));
        Assert.Equal("*2\r\n$17\r\nmaxmemory-samples\r\n$1\r\n7\r\n", c.Call("CONFIG", "GET", "maxmemory-samples"));
        Assert.Equal("*2\r\n$25\r\nhash-max-listpack-entries\r\n$2\r\n99\r\n", c.Call("CONFIG", "GET", "hash-max-listpack-entries"));
        Assert.Equal("*2\r\n$18\r\nproto-max-bulk-len\r\n$7\r\n2097152\r\n", c.Call("CONFIG", "GET", "proto-max-bulk-len"));
        // The included files in name order: b.conf's hz wins.
        Assert.Equal("*2\r\n$2\r\nhz\r\n$1\r\n7\r\n", c.Call("CONFIG", "GET", "hz"));
        Assert.Equal("*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\nAKE\r\n", c.Call("CONFIG", "GET", "notify-keyspace-events"));
        Assert.Equal("*2\r\n$22\r\nset-max-intset-entries\r\n$3\r\n300\r\n", c.Call("CONFIG", "GET", "set-max-intset-entries"));
        Assert.Equal("config_file:" + path, InfoLine(c, "config_file"));
    }

    [Fact]
    public async Task ConfigFile_OptionsAfterFile_OverrideAndSavePointsAccumulate()
    {
        string path = Write("s.conf", "save 900 1\nsave 300 10\nhz 20\n");
        var options = ServerOptions.Parse([path, "--hz", "30", "--save", "60", "5", "--shards", "3"]);
        await using var server = new RedisServer(options);
        Assert.Equal(3, options.Shards);
        Assert.Equal(30, server.Config.Hz);
        // As Redis reads a configuration: the first save line replaces the defaults, later ones add.
        Assert.Equal("900 1 300 10 60 5", server.Config.Value("save"));
        Assert.Equal(Path.GetFullPath(path), options.ConfigFile);
    }

    [Fact]
    public async Task Stdin_Dash_ReadAfterTheFileBeforeTheOptions()
    {
        string path = Write("f.conf", "maxmemory 1mb\nhz 11\n");
        var options = ServerOptions.Parse([path, "--hz", "13", "-"], new StringReader("maxmemory 128mb\nhz 12\n"));
        await using var server = new RedisServer(options);
        Assert.Equal("134217728", server.Config.Value("maxmemory"));
        Assert.Equal(13, server.Config.Hz);
    }

    [Fact]
    public void BadDirective_ThrowsWithLineAndText()
    {
        string path = Write("bad.conf", "port 7000\n\n  maxmemory-policy nope  \n");
        var ex = Assert.Throws<ConfigFileException>(() => ServerOptions.Parse([path]));
        Assert.Equal(3, ex.Line);
        Assert.Equal("maxmemory-policy nope", ex.Text);
        Assert.StartsWith("argument(s) must be one of the following:", ex.Message);
    }

    [Fact]
    public async Task UserDirective_InTheFile_DefinesTheUser()
    {
        string path = Write("u.conf", "user alice on >pw ~* +@all\n");
        await using var server = TestServer.StartWithConfig(path);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("AUTH", "alice", "pw"));
        string bad = Write("bad-user.conf", "port 0\nuser bob on +nosuch\n");
        var ex = Assert.Throws<ConfigFileException>(() => { _ = new RedisServer(ServerOptions.Parse([bad])); });
        Assert.Equal(2, ex.Line);
        Assert.StartsWith("Error in user declaration 'bob': ", ex.Message);
    }

    [Fact]
    public void IncludeLoop_StopsWithAnError()
    {
        string path = Path.Combine(_dir, "loop.conf");
        Write("loop.conf", $"include {path}\n");
        var ex = Assert.Throws<ConfigFileException>(() => ServerOptions.Parse([path]));
        Assert.Contains("nested", ex.Message);
    }

    /// <summary>Each case: the same arguments to redis-server and to this server must fail the same way.</summary>
    public static TheoryData<string, string[]> FatalCases => new()
    {
        { "port 7000\nfoo bar\n", [] },
        { "port 7000\nmaxmemory-policy nope\n", [] },
        { "port \"7000\n", [] },
        { "port 1 2\n", [] },
        { "hz 10\n", ["--foo", "bar"] },
        { "hz 10\n", ["--port", "1", "--maxmemory", "1x"] },
        { "hz 10\n", ["--save", "--port", "99999"] },
        { "hz 10\n", ["--loglevel"] },
        { "save 10\n", [] },
        { "client-output-buffer-limit normal 1 2\n", [] },
        { "hz 10\n", ["--logfile", "/nonexistent-dir/x.log"] },
        { "include INCLUDED\n", [] },
        { "port 7000\ncluster-enabled yes\nreplicaof 127.0.0.1 6379\n", [] },
        { "slaveof 127.0.0.1 6379\n", ["--cluster-enabled", "yes"] },
    };

    [RedisTheory]
    [MemberData(nameof(FatalCases))]
    public void StartUp_BadConfiguration_FailsAsRedisServer(string text, string[] extra)
    {
        string included = Write("included.conf", "# first\nmaxmemory 5x\n");
        string path = Write("fatal.conf", text.Replace("INCLUDED", included));
        var redis = Run(ReferenceRedis.ServerPath!, [path, .. extra]);
        var ours = RunOurs([path, .. extra]);
        Assert.Equal(1, redis.ExitCode);
        Assert.Equal(1, ours.ExitCode);
        Assert.Contains("FATAL CONFIG FILE ERROR", redis.Stderr);
        Assert.Equal(Normalize(redis.Stderr), Normalize(ours.Stderr));
    }

    [RedisFact]
    public void StartUp_MissingConfigFile_SameLogLineAsRedis()
    {
        string path = Path.Combine(_dir, "missing.conf");
        var redis = Run(ReferenceRedis.ServerPath!, [path]);
        var ours = RunOurs([path]);
        Assert.Equal(1, redis.ExitCode);
        Assert.Equal(1, ours.ExitCode);
        static string Message(string output) => output.Trim()[(output.Trim().IndexOf(" # ", StringComparison.Ordinal) + 3)..];
        Assert.Equal($"Fatal error, can't open config file '{path}': No such file or directory", Message(redis.Stdout));
        Assert.Equal(Message(redis.Stdout), Message(ours.Stdout + ours.Stderr));
    }

    [Fact]
    public void VersionHelpAndTestMemory_AnswerAndExit()
    {
        var version = RunOurs(["-v"]);
        Assert.Equal(0, version.ExitCode);
        Assert.Matches(@"^Redis server v=8\.2\.\d+ sha=00000000:0 malloc=dotnet-gc bits=64 build=[0-9a-f]{16}\n$", version.Stdout);
        Assert.Equal(version.Stdout, RunOurs(["--version"]).Stdout);
        var help = RunOurs(["--help"]);
        Assert.Equal(1, help.ExitCode); // as redis-server
        Assert.StartsWith("Usage: RedisClone [/path/to/redis.conf] [options] [-]", help.Stderr);
        var memtest = RunOurs(["--test-memory", "100"]);
        Assert.Equal(1, memtest.ExitCode);
        Assert.Contains("--test-memory", memtest.Stderr);
    }

    [RedisFact]
    public void VersionAndHelp_SameFormsAsRedisServer()
    {
        // The version line's words and fields as redis-server prints them (values differ), on standard
        // output with status 0; the usage on standard error with status 1, first line of the same form.
        const string versionForm = @"^Redis server v=[0-9.]+ sha=[0-9a-f]{8}:[0-9]+ malloc=[^ ]+ bits=64 build=[0-9a-f]+\n$";
        foreach (string flag in new[] { "-v", "--version" })
        {
            var redis = Run(ReferenceRedis.ServerPath!, [flag]);
            var ours = RunOurs([flag]);
            Assert.Equal((0, ""), (redis.ExitCode, redis.Stderr));
            Assert.Matches(versionForm, redis.Stdout);
            Assert.Equal((0, ""), (ours.ExitCode, ours.Stderr));
            Assert.Matches(versionForm, ours.Stdout);
        }
        foreach (string flag in new[] { "-h", "--help" })
        {
            var redis = Run(ReferenceRedis.ServerPath!, [flag]);
            var ours = RunOurs([flag]);
            Assert.Equal((1, ""), (redis.ExitCode, redis.Stdout));
            Assert.Equal((1, ""), (ours.ExitCode, ours.Stdout));
            Assert.Matches(@"^Usage: \S+ \[/path/to/redis\.conf\] \[options\] \[-\]\n", redis.Stderr);
            Assert.Matches(@"^Usage: \S+ \[/path/to/redis\.conf\] \[options\] \[-\]\n", ours.Stderr);
        }
    }

    [RedisFact]
    public async Task ConfigRewrite_KeepsCommentsAndOrder_SameFileAsRedis()
    {
        const string original = """
            # my comment
            port PORT

            maxmemory 10mb
            save 900 1
            save 300 10
            hz 10
            slave-read-only yes
            """;
        int redisPort = ReferenceRedis.FreePort();
        string redisConf = Write("redis.conf", original.Replace("PORT", redisPort.ToString()) + "\n");
        string oursConf = Write("ours.conf", original.Replace("PORT", "0") + "\n");
        using var redis = Process.Start(new ProcessStartInfo(ReferenceRedis.ServerPath!, [redisConf, "--bind", "127.0.0.1", "--dir", _dir])
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        })!;
        try
        {
            await using var server = TestServer.StartWithConfig(oursConf, "--dir", _dir);
            using var rc = ConnectWhenUp(redisPort);
            using var oc = server.Connect();
            string[] set = ["CONFIG", "SET", "maxmemory", "20mb", "maxmemory-policy", "allkeys-lru", "notify-keyspace-events", "KEA", "save", "60 5"];
            Assert.Equal("+OK\r\n", rc.Call(set));
            Assert.Equal("+OK\r\n", oc.Call(set));
            Assert.Equal("+OK\r\n", rc.Call("CONFIG", "REWRITE"));
            Assert.Equal("+OK\r\n", oc.Call("CONFIG", "REWRITE"));
            // Up to Redis's signature line the files are the same; after it the same lines, in an
            // order of Redis's hash table (Redis 7.x always adds latency-tracking-info-percentiles).
            // Redis 7.2 describes the default user with sanitize-payload (as its ACL LIST does); 7.0 did not.
            var redisText = File.ReadAllText(redisConf).Replace("port " + redisPort, "port " + server.Port)
                .Replace("user default on nopass ~*", "user default on nopass sanitize-payload ~*").Split("# Generated by CONFIG REWRITE\n");
            var oursText = File.ReadAllText(oursConf).Split("# Generated by CONFIG REWRITE\n");
            Assert.Equal(2, redisText.Length);
            Assert.Equal(2, oursText.Length);
            Assert.Equal(redisText[0], oursText[0]);
            Assert.Equal("# my comment\nport " + server.Port + "\n\nmaxmemory 20mb\nsave 60 5\n\nhz 10\nreplica-read-only yes\n\n", oursText[0]);
            Assert.Equal(
                redisText[1].Split('\n').Where(l => l != "bind 127.0.0.1").Order(), // this server's default bind
                oursText[1].Split('\n').Order());

            // Rewriting again keeps the file (the first one after a file ending in a newline adds a
            // blank last line, as Redis's does), and the file starts a server with the same values.
            Assert.Equal("+OK\r\n", oc.Call("CONFIG", "REWRITE"));
            string twice = File.ReadAllText(oursConf);
            Assert.Equal("+OK\r\n", oc.Call("CONFIG", "REWRITE"));
            Assert.Equal(twice, File.ReadAllText(oursConf));
            var reread = ServerOptions.Parse([oursConf]);
            await using var again = new RedisServer(reread);
            Assert.Equal("20971520", again.Config.Value("maxmemory"));
            Assert.Equal("allkeys-lru", again.Config.Value("maxmemory-policy"));
            Assert.Equal("60 5", again.Config.Value("save"));
        }
        finally
        {
            redis.Kill();
            redis.WaitForExit();
        }
    }

    /// <summary>CONFIG SET port and bind move the listeners; CONFIG REWRITE then writes where they are now.</summary>
    [Fact]
    public async Task ConfigRewrite_AfterConfigSetPortAndBind_WritesTheNewValues()
    {
        string path = Write("listen.conf", "# before\nport 0\nbind 127.0.0.1\nhz 12\n");
        await using var server = TestServer.StartWithConfig(path);
        using var c = server.Connect();
        int newPort = ReferenceRedis.FreePort();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "port", newPort.ToString(), "bind", "127.0.0.1 127.0.0.2"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "REWRITE"));
        Assert.StartsWith($"# before\nport {newPort}\nbind 127.0.0.1 127.0.0.2\nhz 12\n", File.ReadAllText(path));
        var reread = ServerOptions.Parse([path]);
        Assert.Equal(newPort, reread.Port);
        Assert.Equal(["127.0.0.1", "127.0.0.2"], reread.Bind);
    }

    [Fact]
    public async Task ConfigRewrite_UnknownLinesCommentedOwnDirectivesKept()
    {
        string path = Write("own.conf", "shards 2\nhz 12\nhz 13\n");
        await using var server = TestServer.StartWithConfig(path);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "hz", "14"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "REWRITE"));
        string text = File.ReadAllText(path);
        // The first hz line takes the value, the duplicate goes; our shards directive stays.
        Assert.StartsWith("shards 2\nhz 14\n\n", text);
        Assert.DoesNotContain("hz 13", text);
    }

    /// <summary>Debian's own redis.conf (from the redis-server package) starts this server, its host paths overridden.</summary>
    [RedisFact]
    public async Task DebianRedisConf_WithOverrides_Starts()
    {
        const string Conf = "/etc/redis/redis.conf";
        // The package installs it, readable by root and the redis group; nothing to read otherwise.
        try { File.ReadAllText(Conf); }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException) { return; }
        string pid = Path.Combine(_dir, "server.pid");
        await using (var server = TestServer.StartWithConfig(Conf, "--port", "0", "--daemonize", "no", "--supervised", "no",
                         "--pidfile", pid, "--logfile", "", "--dir", _dir))
        {
            using var c = server.Connect();
            Assert.Equal("+PONG\r\n", c.Call("PING"));
            Assert.Equal($"{Environment.ProcessId}\n", File.ReadAllText(pid));
        }
        Assert.False(File.Exists(pid), "the pid file is removed when the server stops");
    }

    [RedisFact]
    public void ProcTitleTemplate_BadTemplates_SameErrorsAsRedis() => Differential.AssertSame(
        ["CONFIG", "SET", "proc-title-template", "{title} {nope}"],
        ["CONFIG", "SET", "proc-title-template", "{title"],
        ["CONFIG", "SET", "proc-title-template", "{server-mode}"],
        ["CONFIG", "SET", "proc-title-template", "{{title}} {port}"],
        ["CONFIG", "GET", "proc-title-template"],
        ["CONFIG", "SET", "proc-title-template", "{title} {listen-addr} {server-mode}"]);

    private static RespClient ConnectWhenUp(int port)
    {
        var sw = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                return new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, port));
            }
            catch (System.Net.Sockets.SocketException) when (sw.ElapsedMilliseconds < 10_000)
            {
                Thread.Sleep(50);
            }
        }
    }

    private static string InfoLine(RespClient c, string field)
    {
        string info = c.Call("INFO", "server");
        return info.Split("\r\n").First(l => l.StartsWith(field + ":", StringComparison.Ordinal));
    }

    private static string Normalize(string stderr)
        => System.Text.RegularExpressions.Regex.Replace(stderr, @"\(Redis [0-9.]+\)", "(Redis x)").Trim();

    private static (int ExitCode, string Stdout, string Stderr) RunOurs(string[] args)
        => Run("dotnet", [Path.Combine(AppContext.BaseDirectory, "RedisClone.dll"), .. args]);

    private static (int ExitCode, string Stdout, string Stderr) Run(string program, string[] args)
    {
        var psi = new ProcessStartInfo(program, args)
        {
            RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        using var p = Process.Start(psi)!;
        p.StandardInput.Close();
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(30_000))
        {
            p.Kill(entireProcessTree: true);
            throw new TimeoutException($"{program} {string.Join(' ', args)} did not exit");
        }
        return (p.ExitCode, stdout.Result, stderr.Result);
    }
}
