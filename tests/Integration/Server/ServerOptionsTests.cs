using RedisClone.Server;

namespace RedisClone.Tests.Server;

public class ServerOptionsTests
{
    [Fact]
    public void Parse_RedisStyleOptions_AreApplied()
    {
        var o = ServerOptions.Parse(["--port", "7000", "--bind", "127.0.0.1", "::1", "--databases", "4", "--shards", "3"]);
        Assert.Equal(7000, o.Port);
        Assert.Equal(new[] { "127.0.0.1", "::1" }, o.Bind);
        Assert.Equal(4, o.Databases);
        Assert.Equal(3, o.Shards);
    }

    [Theory]
    [InlineData("--no-such-option", "1")]
    [InlineData("--port", "notanumber")]
    [InlineData("--shards", "0")]
    [InlineData("--shards", "65")]
    [InlineData("--transport", "iouring")]
    public void Parse_BadOptions_Throw(string name, string value)
    {
        var ex = Assert.Throws<RedisClone.Server.Config.ConfigFileException>(() => ServerOptions.Parse([name, value]));
        Assert.Equal(2, ex.Line); // the options follow the (absent) file's text, as in redis-server
        Assert.Equal($"{name.TrimStart('-')} \"{value}\"", ex.Text);
    }

    [Fact]
    public void Parse_Transport_DefaultEpollOnLinuxSocketsElsewhere()
    {
        var expected = OperatingSystem.IsLinux() ? ServerOptions.TransportKind.Epoll : ServerOptions.TransportKind.Sockets;
        Assert.Equal(expected, ServerOptions.Parse([]).Transport);
        Assert.Equal(ServerOptions.TransportKind.Sockets, ServerOptions.Parse(["--transport", "sockets"]).Transport);
        Assert.Equal(ServerOptions.TransportKind.Sockets, ServerOptions.Parse(["--transport", "SOCKETS"]).Transport);
        if (OperatingSystem.IsLinux())
        {
            Assert.Equal(ServerOptions.TransportKind.Epoll, ServerOptions.Parse(["--transport", "sockets", "--transport", "epoll"]).Transport);
        }
        else
        {
            var ex = Assert.Throws<RedisClone.Server.Config.ConfigFileException>(() => ServerOptions.Parse(["--transport", "epoll"]));
            Assert.Contains("needs Linux", ex.Message);
        }
    }
}
