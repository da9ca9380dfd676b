using System.Text;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands.Acl;

/// <summary>
/// Whether a user may run a command with its arguments (Redis's ACLCheckAllUserCommandPerm): some
/// selector must allow the command, every key it names with the access its key spec needs, and
/// every channel it publishes or subscribes to. Only users that are not unrestricted get here.
/// </summary>
internal static class AclChecks
{
    /// <summary>
    /// Checks command <paramref name="i"/> of <paramref name="buffer"/> (already looked up as
    /// <paramref name="def"/>). On refusal <paramref name="position"/> is the argument that failed
    /// (0 for the command itself): the last one no selector allowed, as Redis picks it.
    /// </summary>
    public static AclResult Check(RedisServer server, ClientSession client, AclUserState state, CommandDef def,
        CommandBuffer buffer, int i, long nowMs, out int position)
    {
        position = 0;
        int argc = buffer.ArgCount(i);
        byte[][]? args = null;
        List<(int Position, KeySpecFlags Flags)>? keys = null;
        var relevant = AclResult.DeniedCommand;
        int lastPosition = 0;
        foreach (var selector in state.Selectors)
        {
            var result = CheckSelector(server, client, selector, def, buffer, i, argc, nowMs, ref args, ref keys, out int failed);
            if (result == AclResult.Ok) return AclResult.Ok;
            if (result > relevant || (result == relevant && failed > lastPosition))
            {
                relevant = result;
                lastPosition = failed;
            }
        }
        position = lastPosition;
        return relevant;
    }

    /// <summary>
    /// Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess: whether one selector of the client's user
    /// both allows command <paramref name="i"/> and opens every key for <paramref name="needed"/>. SORT
    /// asks it before reading the keys its BY and GET patterns name, which no key check sees. A
    /// connection without a user (AOF loading, a master's stream) may do anything.
    /// </summary>
    public static bool HasFullKeyAccess(RedisServer server, ClientSession client, CommandDef def, CommandBuffer buffer, int i,
        long nowMs, KeyAccess needed)
    {
        var user = client.User;
        if (user == null || user.State.Unrestricted) return true;
        int argc = buffer.ArgCount(i);
        byte[][]? args = null;
        List<(int Position, KeySpecFlags Flags)>? keys = null;
        foreach (var selector in user.State.Selectors)
        {
            if (selector.AllowsEveryKey(needed)
                && CheckSelector(server, client, selector, def, buffer, i, argc, nowMs, ref args, ref keys, out _) == AclResult.Ok)
                return true;
        }
        return false;
    }

    private static AclResult CheckSelector(RedisServer server, ClientSession client, AclSelector selector, CommandDef def,
        CommandBuffer buffer, int i, int argc, long nowMs, ref byte[][]? args, ref List<(int Position, KeySpecFlags Flags)>? keys,
        out int failed)
    {
        failed = 0;
        int firstArgAt = def.Parent != null ? 2 : 1;
        bool hasFirst = argc > firstArgAt && argc >= 2;
        if (!selector.AllowsCommand(def, hasFirst ? buffer.Arg(i, firstArgAt) : default, hasFirst))
            return AclResult.DeniedCommand;

        if (!selector.AllKeys && CommandMetadata.HasKeys(def))
        {
            if (keys == null)
            {
                args = Copy(buffer, i, argc);
                keys = CommandFamily.KeysWithFlags(server, client, def, args, nowMs);
            }
            foreach (var (keyAt, flags) in keys)
            {
                var needed = KeyAccess.None;
                if ((flags & KeySpecFlags.Access) != 0) needed |= KeyAccess.Read;
                if ((flags & (KeySpecFlags.Insert | KeySpecFlags.Delete | KeySpecFlags.Update)) != 0) needed |= KeyAccess.Write;
                if (!selector.AllowsKey(buffer.Arg(i, keyAt), needed))
                {
                    failed = keyAt;
                    return AclResult.DeniedKey;
                }
            }
        }

        if (!selector.AllChannels && ChannelArguments(def, argc, out int start, out int stop, out bool pattern))
        {
            for (int a = start; a < stop; a++)
            {
                if (selector.AllowsChannel(buffer.Arg(i, a), pattern)) continue;
                failed = a;
                return AclResult.DeniedChannel;
            }
        }
        return AclResult.Ok;
    }

    /// <summary>The arguments that are channels a command publishes or subscribes to (Redis's commands_with_channels; unsubscribing is never checked).</summary>
    private static bool ChannelArguments(CommandDef def, int argc, out int start, out int stop, out bool pattern)
    {
        start = 1;
        stop = argc;
        pattern = false;
        var h = def.Handler;
        if (h == PubSubCommands.Subscribe || h == PubSubCommands.SSubscribe) return true;
        if (h == PubSubCommands.PSubscribe)
        {
            pattern = true;
            return true;
        }
        if (h == PubSubCommands.Publish || h == PubSubCommands.SPublish)
        {
            stop = Math.Min(2, argc);
            return true;
        }
        return false;
    }

    private static byte[][] Copy(CommandBuffer buffer, int i, int argc)
    {
        var args = new byte[argc][];
        for (int a = 0; a < argc; a++) args[a] = buffer.Arg(i, a).ToArray();
        return args;
    }

    /// <summary>Redis's getAclErrorMessage (without -NOPERM); verbose names the key or channel (ACL DRYRUN).</summary>
    public static string Message(AclResult result, AclUser user, CommandDef def, ReadOnlySpan<byte> argument, bool verbose) => result switch
    {
        AclResult.DeniedCommand => $"User {user.Name} has no permissions to run the '{def.FullName}' command",
        AclResult.DeniedKey => verbose ? $"User {user.Name} has no permissions to access the '{Encoding.Latin1.GetString(argument)}' key" : "No permissions to access a key",
        AclResult.DeniedChannel => verbose ? $"User {user.Name} has no permissions to access the '{Encoding.Latin1.GetString(argument)}' channel" : "No permissions to access a channel",
        _ => "",
    };

    /// <summary>Adds a refusal to the ACL log: the command's full name, or the key or channel that failed.</summary>
    public static void Log(RedisServer server, ClientSession client, AclResult result, AclLogContext context, CommandDef def,
        CommandBuffer buffer, int i, int position, ClientSession? realClient = null)
    {
        string obj = result == AclResult.DeniedCommand ? def.FullName : Encoding.Latin1.GetString(buffer.Arg(i, position));
        var user = client.User ?? server.Acl.Default;
        server.Acl.Log.Add(result, context, obj, user.Name, ConnectionCommands.ClientInfoLine(realClient ?? client), server.Config.AclLogMaxLen);
    }
}
