using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// INFO memory's script fields as Redis 7.0 and 7.2 show them: the number of cached EVAL scripts,
/// functions and libraries, the Lua states' memory (used_memory_vm_eval, its old name
/// used_memory_lua, used_memory_vm_functions and their total) and the caches' own memory
/// (used_memory_scripts_eval, used_memory_functions and their sum, used_memory_scripts).
/// </summary>
public class ScriptMemoryInfoTests
{
    private static long Field(string info, string name)
    {
        var m = Regex.Match(info, "\r\n" + name + ":([0-9]+)\r\n");
        Assert.True(m.Success, name + " missing from INFO memory");
        return long.Parse(m.Groups[1].Value);
    }

    [Fact]
    public async Task InfoMemory_CachedScriptsAndFunctions_Reported()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        Assert.Equal(0, Field(c.Call("INFO", "memory"), "number_of_cached_scripts"));

        c.Call("SCRIPT", "LOAD", "return 1");
        c.Call("SCRIPT", "LOAD", "return 2");
        c.Call("EVAL", "return 3", "0");
        c.Call("EVAL", "return 3", "0"); // the same script: cached once
        string info = c.Call("INFO", "memory");
        Assert.Equal(3, Field(info, "number_of_cached_scripts"));
        long evalCache = Field(info, "used_memory_scripts_eval");
        Assert.True(evalCache > 3 * (40 + 8), $"used_memory_scripts_eval {evalCache}");
        long vmEval = Field(info, "used_memory_vm_eval");
        Assert.True(vmEval > 0, "used_memory_vm_eval");
        Assert.Equal(vmEval, Field(info, "used_memory_lua"));

        c.Call("SCRIPT", "LOAD", "return '" + new string('x', 1000) + "'");
        info = c.Call("INFO", "memory");
        Assert.Equal(4, Field(info, "number_of_cached_scripts"));
        Assert.True(Field(info, "used_memory_scripts_eval") >= evalCache + 1000, "a longer script takes more");

        Assert.StartsWith("$", c.Call("FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)\nredis.register_function('f2', function() return 2 end)"));
        Assert.StartsWith("$", c.Call("FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('f3', function() return 3 end)"));
        info = c.Call("INFO", "memory");
        Assert.Equal(3, Field(info, "number_of_functions"));
        Assert.Equal(2, Field(info, "number_of_libraries"));
        long functions = Field(info, "used_memory_functions");
        Assert.True(functions > 0, "used_memory_functions");
        long vmFunctions = Field(info, "used_memory_vm_functions");
        Assert.True(vmFunctions > 0, "used_memory_vm_functions");
        Assert.Equal(Field(info, "used_memory_vm_eval") + vmFunctions, Field(info, "used_memory_vm_total"));
        Assert.Equal(Field(info, "used_memory_scripts_eval") + functions, Field(info, "used_memory_scripts"));

        Assert.Equal("+OK\r\n", c.Call("SCRIPT", "FLUSH"));
        info = c.Call("INFO", "memory");
        Assert.Equal(0, Field(info, "number_of_cached_scripts"));
        Assert.Equal(0, Field(info, "used_memory_scripts_eval"));
        Assert.Equal(3, Field(info, "number_of_functions"));
        Assert.Equal(functions, Field(info, "used_memory_scripts"));
    }

    [RedisFact]
    public void InfoMemory_ScriptFields_SameNamesAndOrderAsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        static string Names(string info) => string.Join(' ', Regex.Matches(info, "\r\n([a-z_]+):")
            .Select(m => m.Groups[1].Value).Where(n => n.Contains("lua") || n.Contains("script") || n.Contains("function") || n.Contains("vm") || n.Contains("librar")));
        Assert.Equal(Names(theirs.Call("INFO", "memory")), Names(ours.Call("INFO", "memory")));
        theirs.Call("SCRIPT", "LOAD", "return 1");
        ours.Call("SCRIPT", "LOAD", "return 1");
        Assert.Equal(Field(theirs.Call("INFO", "memory"), "number_of_cached_scripts"), Field(ours.Call("INFO", "memory"), "number_of_cached_scripts"));
    }
}
