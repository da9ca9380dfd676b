namespace RedisClone.Commands;

/// <summary>Placeholder while the family is written.</summary>
internal static class StringCommands
{
    public static void Get(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Set(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void SetNx(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void SetEx(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void PSetEx(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void GetSet(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void GetDel(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void GetEx(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void MGet(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void MSet(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void MSetNx(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Incr(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void IncrBy(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Decr(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void DecrBy(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void IncrByFloat(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Append(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void StrLen(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void GetRange(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void SetRange(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Lcs(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");
}
