namespace RedisClone.Scripting;

/// <summary>A loaded library: its name, its code as loaded (shebang line included) and its functions in registration order.</summary>
internal sealed class FunctionLibrary(string name, byte[] code)
{
    public string Name { get; } = name;
    public byte[] Code { get; } = code;
    public List<FunctionInfo> Functions { get; } = [];
}
