namespace RedisClone.Commands;

/// <summary>Placeholder while the family is written.</summary>
internal static class KeyCommands
{
    public static void Del(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Exists(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Touch(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Type(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Rename(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void RenameNx(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Copy(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Move(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Keys(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Scan(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void RandomKey(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void DbSize(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void FlushDb(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void FlushAll(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void SwapDb(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Expire(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void PExpire(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ExpireAt(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void PExpireAt(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Ttl(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void PTtl(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ExpireTime(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void PExpireTime(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Persist(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ObjectEncoding(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ObjectFreq(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ObjectIdleTime(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ObjectRefCount(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ObjectHelp(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");
}
