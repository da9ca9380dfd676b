using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Security;

/// <summary>aclfile: ACL SAVE and LOAD, loading at start-up, and the errors, against redis-server.</summary>
public sealed class AclFileTests : IDisposable
{
    private readonly List<string> _dirs = [];

    public void Dispose()
    {
        foreach (var dir in _dirs)
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    private string TempFile(string content)
    {
        var dir = Directory.CreateTempSubdirectory("redisclone-acl-").FullName;
        _dirs.Add(dir);
        var path = Path.Combine(dir, "users.acl");
        File.WriteAllText(path, content);
        return path;
    }

    [Fact]
    public async Task AclSaveThenLoad_RoundTripsEveryUser()
    {
        var path = TempFile("");
        await using var server = TestServer.Start(2, "--aclfile", path);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "alice", "on", ">pw", "~k*", "%R~r*", "&c*", "-@all", "+@read", "+select|0", "(+set ~x*)"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "bob", "on", "nopass", "+@all", "-debug", "allkeys"));
        string list = c.Call("ACL", "LIST");
        Assert.Equal("+OK\r\n", c.Call("ACL", "SAVE"));
        var saved = File.ReadAllLines(path);
        Assert.Equal(
        [
            "user alice on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~k* %R~r* resetchannels &c* -@all +@read +select|0 (~x* resetchannels -@all +set)",
            "user bob on nopass sanitize-payload ~* resetchannels +@all -debug",
            "user default on nopass sanitize-payload ~* &* +@all",
        ], saved);
        Assert.Equal(":1\r\n", c.Call("ACL", "DELUSER", "alice"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "carol", "on"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "LOAD"));
        Assert.Equal(list, c.Call("ACL", "LIST"));
        using var alice = server.Connect();
        Assert.Equal("+OK\r\n", alice.Call("AUTH", "alice", "pw"));
        Assert.Equal("+OK\r\n", alice.Call("SELECT", "0"));
    }

    [Fact]
    public async Task AclLoad_ClosesConnectionsOfReplacedUsers_KeepsDefaultOnes()
    {
        var path = TempFile("user alice on >pw +@all ~*\n");
        await using var server = TestServer.Start(2, "--aclfile", path);
        using var alice = server.Connect();
        Assert.Equal("+OK\r\n", alice.Call("AUTH", "alice", "pw"));
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("ACL", "LOAD"));
        Assert.True(alice.IsClosedByServer());
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [RedisFact]
    public void AclLoad_Errors_AsRedisAndNothingChanges()
    {
        string[] contents =
        [
            "user alice on >pw +@all ~*\nfoo bar\n",
            "user alice on +nosuch ~* +@nosuch\n",
            "user alice on bad worse\n",
            "user alice on\nuser alice off\n",
            "user\n",
            "user alice (+get ~x\n",
            "user alice ~* ~x\n",
        ];
        foreach (var content in contents)
        {
            var theirsPath = TempFile("");
            var oursPath = TempFile("");
            using var reference = ReferenceRedis.StartOrNull($"--aclfile {theirsPath}")
                                  ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
            using var theirs = reference.Connect();
            var ours = TestServer.Start(2, "--aclfile", oursPath);
            try
            {
                using var c = ours.Connect();
                File.WriteAllText(theirsPath, content);
                File.WriteAllText(oursPath, content);
                string expected = theirs.Call("ACL", "LOAD").Replace(theirsPath, "<file>");
                string actual = c.Call("ACL", "LOAD").Replace(oursPath, "<file>");
                Assert.Equal(Differential.Show(expected), Differential.Show(actual));
                Assert.Equal("*1\r\n$7\r\ndefault\r\n", c.Call("ACL", "USERS"));
            }
            finally
            {
                ours.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
    }

    [Fact]
    public void Startup_AclFileWithErrors_OrUsersToo_Refused()
    {
        var bad = TempFile("user alice on +nosuch\n");
        ArgumentException error = Assert.ThrowsAny<ArgumentException>(() => TestServer.Start(2, "--aclfile", bad));
        Assert.Contains("Aborting Redis startup because of ACL errors: ", error.Message);
        var good = TempFile("user alice on >pw\n");
        error = Assert.ThrowsAny<ArgumentException>(() => TestServer.Start(2, "--aclfile", good, "--user", "bob", "on"));
        Assert.Contains("please define either an ACL file or declare users directly in your redis.conf, but not both", error.Message);
        error = Assert.ThrowsAny<ArgumentException>(() => TestServer.Start(2, "--user", "bob", "+nosuch"));
        Assert.Contains("Unknown command or category name in ACL", error.Message);
    }

    [RedisFact]
    public void UserDirective_OnTheCommandLine_AsRedis()
    {
        using var servers = new PairedServers("--user", "alice", "on", ">pw", "~k*", "+get", "--user", "default", "on", "nopass", "~*", "&*", "+@all", "-flushall");
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours,
        [
            ["FLUSHALL"], ["AUTH", "alice", "pw"], ["GET", "k1"], ["GET", "x"], ["ACL", "WHOAMI"],
        ], r => r.Replace("this user has no permissions to run the 'flushall' command", "User default has no permissions to run the 'flushall' command")
                 .Replace("this user has no permissions to access one of the keys used as arguments", "No permissions to access a key")
                 .Replace("this user has no permissions to run the 'acl|whoami' command", "User alice has no permissions to run the 'acl|whoami' command"));
        Assert.True(diff.Length == 0, diff);
    }

    [Fact]
    public async Task AclPubsubDefault_AllChannels_NewUsersGetEveryChannel()
    {
        await using var server = TestServer.Start(2, "--acl-pubsub-default", "allchannels");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "a"));
        Assert.Contains("user a off sanitize-payload &* -@all", c.Call("ACL", "LIST"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "acl-pubsub-default", "resetchannels"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "b"));
        Assert.Contains("user b off sanitize-payload resetchannels -@all", c.Call("ACL", "LIST"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "a", "reset"));
        Assert.Contains("user a off sanitize-payload resetchannels -@all", c.Call("ACL", "LIST"));
    }
}
