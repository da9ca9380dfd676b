using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>What a script must not reach: precompiled Lua bytecode, which could break the VM.</summary>
public sealed class ScriptSandboxTests
{
    [Fact]
    public void Loadstring_BinaryChunk_IsRefused()
    {
        using var client = TestServer.Shared.Connect();
        // string.dump of a function gives its bytecode; Redis parses every chunk as text.
        string reply = client.Call("EVAL",
            "local f, err = loadstring(string.dump(function() return 1 end)) return {tostring(f), tostring(err ~= nil)}", "0");
        Assert.StartsWith("*2\r\n$3\r\nnil\r\n$4\r\ntrue\r\n", reply);
    }
}
