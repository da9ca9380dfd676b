using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// Redis 7.4's os library in scripts and functions: os.clock only (the process's CPU time in
/// seconds, for a script to time itself), read-only like every library table. redis-server 7.0 has
/// no os library, so these assert 7.4's script_lua.c / loslib.c behaviour.
/// </summary>
public class ScriptOsClockTests
{
    [Fact]
    public void Eval_OsLibrary_OnlyClock()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("$5\r\ntable\r\n", c.Call("EVAL", "return type(os)", "0"));
        Assert.Equal("$6\r\nnumber\r\n", c.Call("EVAL", "return type(os.clock())", "0"));
        Assert.Equal("*1\r\n$5\r\nclock\r\n", c.Call("EVAL", "local out = {} for k in next, os do out[#out + 1] = k end return out", "0"));
        Assert.Equal("$3\r\nnil\r\n", c.Call("EVAL", "return type(os.time) .. type(os.execute) == 'nilnil' and 'nil' or 'some'", "0"));
        // Time a loop with it: CPU time does not go back.
        Assert.Equal(":1\r\n", c.Call("EVAL", "local s = os.clock() local x = 0 for i = 1, 100000 do x = x + i end return os.clock() >= s", "0"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Eval_OsTable_ReadOnly()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Contains("Attempt to modify a readonly table", c.Call("EVAL", "os.clock = nil return 1", "0"));
        Assert.Contains("Attempt to modify a readonly table", c.Call("EVAL", "os.time = function() return 1 end return 1", "0"));
        Assert.Equal("$6\r\nnumber\r\n", c.Call("EVAL", "return type(os.clock())", "0"));
    }

    [Fact]
    public void Fcall_OsClock_AvailableToFunctions()
    {
        using var c = TestServer.Shared.Connect();
        string lib = "oslib" + Guid.NewGuid().ToString("N");
        Assert.Equal($"${lib.Length}\r\n{lib}\r\n", c.Call("FUNCTION", "LOAD",
            $"#!lua name={lib}\nredis.register_function('{lib}_f', function() return type(os.clock()) end)"));
        Assert.Equal("$6\r\nnumber\r\n", c.Call("FCALL", lib + "_f", "0"));
        c.Call("FUNCTION", "DELETE", lib);
    }
}
