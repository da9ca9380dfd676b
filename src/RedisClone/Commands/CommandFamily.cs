namespace RedisClone.Commands;

/// <summary>
/// COMMAND and its subcommands (COUNT, DOCS, GETKEYS, GETKEYSANDFLAGS, INFO, LIST, HELP).
/// Placeholder: the "command" helper replaces this file.
/// </summary>
internal static class CommandFamily
{
    public static void Command(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandCount(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandDocs(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandGetKeys(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandGetKeysAndFlags(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandInfo(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandList(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void CommandHelp(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");
}
