namespace RedisClone.Commands;

/// <summary>Placeholder while the family is written.</summary>
internal static class ConnectionCommands
{
    public static void Ping(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Echo(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Select(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Quit(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Reset(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Hello(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void Auth(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientId(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientSetName(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientGetName(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientSetInfo(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientList(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientInfo(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientKill(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientNoEvict(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientNoTouch(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientReply(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientGetRedir(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientPause(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientUnpause(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");

    public static void ClientHelp(ref CommandContext ctx) => ctx.Error("ERR not implemented yet");
}
