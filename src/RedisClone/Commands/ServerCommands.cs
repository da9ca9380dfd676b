namespace RedisClone.Commands;

/// <summary>Placeholder while the family is written.</summary>
internal static class ServerCommands
{
    public static void Help(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Info(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ConfigGet(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ConfigSet(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ConfigResetStat(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ConfigRewrite(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ConfigHelp(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Command(ref CommandContext ctx) => CommandFamily.Command(ref ctx);

    public static void CommandCount(ref CommandContext ctx) => CommandFamily.CommandCount(ref ctx);

    public static void CommandDocs(ref CommandContext ctx) => CommandFamily.CommandDocs(ref ctx);

    public static void CommandGetKeys(ref CommandContext ctx) => CommandFamily.CommandGetKeys(ref ctx);

    public static void CommandGetKeysAndFlags(ref CommandContext ctx) => CommandFamily.CommandGetKeysAndFlags(ref ctx);

    public static void CommandInfo(ref CommandContext ctx) => CommandFamily.CommandInfo(ref ctx);

    public static void CommandList(ref CommandContext ctx) => CommandFamily.CommandList(ref ctx);

    public static void CommandHelp(ref CommandContext ctx) => CommandFamily.CommandHelp(ref ctx);

    public static void Time(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void LastSave(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Debug(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Shutdown(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Cluster(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");
}
