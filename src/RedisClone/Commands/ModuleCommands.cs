using RedisClone.Protocol;
using RedisClone.Server.Config;

namespace RedisClone.Commands;

/// <summary>
/// MODULE LIST, HELP, LOAD, LOADEX and UNLOAD. Redis modules are C libraries loaded into
/// redis-server's own process through its module API; this server has neither, so no module is ever
/// loaded: LIST is empty, and a load fails as a load of a library that does not load fails in Redis
/// (its reply, a line in the log saying why), so a client handles it as it handles that failure.
/// </summary>
/// <remarks>
/// LOAD, LOADEX and UNLOAD are protected as in Redis 7: refused unless enable-module-command is
/// <c>yes</c>, or <c>local</c> and the client is local (loopback or the Unix socket). LIST and HELP
/// are always allowed.
/// </remarks>
internal static class ModuleCommands
{
    private static readonly HelpReply HelpText = new("MODULE",
        "LIST",
        "    The modules loaded: always none here.",
        "LOAD <path> [<arg> ...]",
        "    Load the module library at <path>. This server does not load modules: always",
        "    an error.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load the module library at <path> with configurations and arguments. Always",
        "    an error here, as LOAD.",
        "UNLOAD <name>",
        "    Unload the module <name>. None is ever loaded: always an error.");

    /// <summary>MODULE LIST — name and version of each loaded module: none.</summary>
    public static void List(ref CommandContext ctx) => ctx.Reply.ArrayHeader(0);

    /// <summary>MODULE HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);

    /// <summary>MODULE LOAD path [arg ...] and MODULE LOADEX path [CONFIG name value ...] [ARGS arg ...] — refused (see the class remarks).</summary>
    public static void Load(ref CommandContext ctx)
    {
        if (!Allowed(ref ctx)) return;
        ctx.Server.Log.Warning($"Module {ctx.ArgString(2)} failed to load: this server does not load modules (they are C libraries for redis-server's own process).");
        ctx.Error(RespErrors.ModuleLoadFailed);
    }

    /// <summary>MODULE UNLOAD name — no module of that name (none is ever loaded).</summary>
    public static void Unload(ref CommandContext ctx)
    {
        if (!Allowed(ref ctx)) return;
        ctx.Error(RespErrors.ModuleUnloadNoSuchModule);
    }

    /// <summary>Redis's protected-command check for MODULE (enable-module-command).</summary>
    private static bool Allowed(ref CommandContext ctx)
    {
        if (ConfigRegistry.ProtectedActionAllowed(ctx.Server.Config.EnableModuleCommand, ServerCommands.IsLocal(ctx.Client))) return true;
        ctx.Error(RespErrors.ModuleNotAllowed);
        return false;
    }
}
