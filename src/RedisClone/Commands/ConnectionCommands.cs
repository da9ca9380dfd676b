using System.Text;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.PubSub;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// The connection family: PING, ECHO, SELECT, QUIT, RESET, HELLO, AUTH and CLIENT's subcommands.
/// </summary>
/// <remarks>
/// Every handler here runs on the connection's own thread and touches no keyspace (Routing.Connection).
/// CLIENT LIST, INFO and KILL read other clients' sessions racily, as Redis's single thread never
/// has to; a field may be a moment stale, never torn (each is one word or an immutable string).
/// AUTH and HELLO AUTH check passwords against the ACL users (Commands/Acl).
/// </remarks>
internal static class ConnectionCommands
{
    private const string DefaultUser = "default";

    private static ReadOnlySpan<byte> ResetReply => "+RESET\r\n"u8;

    private static readonly HelpReply ClientHelpText = new("CLIENT",
        "CACHING (YES|NO)",
        "    In OPTIN (YES) or OPTOUT (NO) tracking mode: track, or not, the keys the next",
        "    command reads.",
        "GETREDIR",
        "    The ID of the client that receives this connection's tracking messages: 0 for",
        "    itself, -1 when tracking is off.",
        "GETNAME",
        "    This connection's name, or nil when it has none.",
        "ID",
        "    This connection's numeric ID, unique for the life of the server.",
        "INFO",
        "    This connection alone, as one line in CLIENT LIST's format.",
        "KILL <ip:port>",
        "    Close the connection coming from <ip:port>, which may be this one; OK, or an",
        "    error when no connection has that address.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Close every connection that passes all the filters given and reply how many",
        "    were closed. Filters:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      its remote address is this one",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      it came in on this local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      it is of this kind (PUBSUB: in subscribe mode; no MASTER or REPLICA here)",
        "    * USER <username>",
        "      it is authenticated as the ACL user <username>",
        "    * SKIPME (YES|NO)",
        "      YES, the default, spares the connection sending the command",
        "    * ID <client-id>",
        "      its ID is <client-id>",
        "    * MAXAGE <maxage>",
        "      it has been open for at least <maxage> seconds",
        "LIST [options ...]",
        "    One line per connection: ID, addresses, name, age, idle time, database, flags,",
        "    subscriptions, buffers and last command. To list only some of them:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      the connections of that kind",
        "    * ID <client-id> [<client-id> ...]",
        "      the connections with these IDs",
        "UNPAUSE",
        "    End a CLIENT PAUSE now: the clients it held go on, in the order they were held.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Hold back every client's commands (ALL, the default), or only those that may",
        "    write (WRITE), for <timeout> milliseconds; keys do not expire meanwhile.",
        "REPLY (ON|OFF|SKIP)",
        "    OFF: no replies to this connection until REPLY ON. SKIP: no reply to the next",
        "    command only. ON: replies again (and OK).",
        "SETNAME <name>",
        "    Give this connection a name shown by CLIENT LIST; printable characters only,",
        "    no spaces. An empty name removes it.",
        "SETINFO <option> <value>",
        "    Say which client library this connection uses, for CLIENT LIST. Options:",
        "    * LIB-NAME: the library's name",
        "    * LIB-VER: the library's version",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Wake the client <clientid> out of a blocking command (BLPOP, BZPOPMIN...) as if",
        "    its timeout had passed, or with an UNBLOCKED error; 1 if it was blocked, else 0.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Client-side caching: be told when keys this connection read (or, with BCAST,",
        "    any key under the prefixes) change, here or at the client <id>.",
        "TRACKINGINFO",
        "    This connection's tracking mode, redirection and prefixes.",
        "NO-EVICT (ON|OFF)",
        "    Flag this connection as one client eviction must spare; recorded only, as there",
        "    is no client eviction here yet.",
        "NO-TOUCH (ON|OFF)",
        "    ON: this connection's reads should leave the keys' idle time alone; recorded",
        "    only for now, reads still count as accesses.");

    /// <summary>Client types as CLIENT LIST TYPE / CLIENT KILL TYPE name them.</summary>
    private enum ClientType { Normal, Replica, PubSub, Master }

    // ---------------------------------------------------------------- PING, ECHO, SELECT, QUIT, RESET

    /// <summary>PING [message] — PONG, or the message as a bulk string.</summary>
    /// <remarks>Arity is -1 in the table (Redis's), so more than one argument is checked here.</remarks>
    public static void Ping(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 2)
        {
            ctx.Error(RespErrors.WrongArity("ping"));
            return;
        }
        if (ctx.Client.Protocol == 2 && ctx.Client.InPubSubMode)
        {
            // A RESP2 subscriber gets PING's answer in the shape of a message: ["pong", message].
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Bulk("pong"u8);
            ctx.Reply.Bulk(ctx.ArgCount == 1 ? default : ctx.Arg(1));
            return;
        }
        if (ctx.ArgCount == 1) ctx.Reply.Raw(Resp.Pong);
        else ctx.Reply.Bulk(ctx.Arg(1));
    }

    /// <summary>ECHO message — the message as a bulk string.</summary>
    public static void Echo(ref CommandContext ctx) => ctx.Reply.Bulk(ctx.Arg(1));

    /// <summary>SELECT index — switches the connection's database.</summary>
    public static void Select(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long index) || index < int.MinValue || index > int.MaxValue)
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (ctx.Server.Cluster != null && index != 0)
        {
            ctx.Error(RespErrors.SelectInClusterMode);
            return;
        }
        if (index < 0 || index >= ctx.Server.Options.Databases)
        {
            ctx.Error(RespErrors.DbIndexOutOfRange);
            return;
        }
        ctx.Client.Db = (int)index;
        ctx.Reply.Ok();
    }

    /// <summary>QUIT — +OK, then the connection closes once the replies before it are written.</summary>
    public static void Quit(ref CommandContext ctx)
    {
        ctx.Reply.Ok();
        ctx.Client.CloseAfterReply = true;
    }

    /// <summary>
    /// RESET — back to a fresh connection's state: database 0, RESP2, no name, replies on,
    /// no-evict and no-touch off, authenticated as the default user. Replies +RESET.
    /// </summary>
    /// <remarks>The library name and version stay, as in Redis: they describe the client, not its state.</remarks>
    public static void Reset(ref CommandContext ctx)
    {
        var client = ctx.Client;
        client.Db = 0;
        client.Protocol = 2;
        client.Name = null;
        client.ReplyMode = ReplyMode.On;
        client.NoEvict = false;
        client.NoTouch = false;
        client.ClusterFlags = Cluster.ClientClusterFlags.None;
        ctx.Server.Acl.SetDefaultAuth(client);
        client.EndMulti();
        TransactionCommands.UnwatchAll(ctx.Server, client); // the executor holds the watched keys' gates
        StopMonitoring(ctx.Server, client);
        PubSubCommands.UnsubscribeEverything(ctx.Server.PubSub, client);
        ctx.Server.Tracking.Disable(client);
        ctx.Reply.Raw(ResetReply);
    }

    // ---------------------------------------------------------------- MONITOR

    /// <summary>
    /// MONITOR — from now on the connection receives every command the server runs (see
    /// PubSub/MonitorFeed.cs). A connection already monitoring gets no reply, as in Redis; inside
    /// EXEC it is refused, as Redis refuses it to a client that may not block.
    /// </summary>
    public static void Monitor(ref CommandContext ctx)
    {
        var client = ctx.Client;
        if (client.DenyBlocking)
        {
            ctx.Error(RespErrors.MonitorDenied);
            return;
        }
        if (client.IsMonitor) return;
        client.IsMonitor = true;
        ctx.Server.Monitors.Add(client.Subscriber!); // every connection's session has one
        ctx.Reply.Ok();
    }

    /// <summary>Leaves MONITOR mode (RESET, disconnect).</summary>
    public static void StopMonitoring(RedisServer server, ClientSession client)
    {
        if (!client.IsMonitor) return;
        client.IsMonitor = false;
        if (client.Subscriber != null) server.Monitors.Remove(client.Subscriber);
    }

    // ---------------------------------------------------------------- HELLO, AUTH

    /// <summary>
    /// HELLO [protover [AUTH username password] [SETNAME clientname]] — switches the protocol and
    /// replies with the server's handshake map (in the new protocol).
    /// </summary>
    public static void Hello(ref CommandContext ctx)
    {
        long version = 0;
        int next = 1;
        if (ctx.ArgCount >= 2)
        {
            if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out version))
            {
                ctx.Error(RespErrors.ProtoVersionNotInteger);
                return;
            }
            if (version < 2 || version > 3)
            {
                ctx.Error(RespErrors.NoProto);
                return;
            }
            next = 2;
        }

        int authAt = -1, nameAt = -1;
        for (int j = next; j < ctx.ArgCount; j++)
        {
            int more = ctx.ArgCount - 1 - j;
            if (ctx.ArgIs(j, "AUTH") && more >= 2)
            {
                authAt = j + 1;
                j += 2;
            }
            else if (ctx.ArgIs(j, "SETNAME") && more >= 1)
            {
                // Checked here, as Redis does: a bad name wins over a later bad option.
                if (!IsPrintableWord(ctx.Arg(j + 1)))
                {
                    ctx.Error(RespErrors.ClientNameInvalid);
                    return;
                }
                nameAt = j + 1;
                j++;
            }
            else
            {
                ctx.Error(RespErrors.HelloSyntax(ctx.Arg(j)));
                return;
            }
        }

        if (authAt > 0 && !Authenticate(ref ctx, ctx.Arg(authAt), ctx.Arg(authAt + 1)))
        {
            ctx.Error(RespErrors.WrongPass);
            return;
        }
        if (!ctx.Client.Authenticated)
        {
            ctx.Error(RespErrors.HelloNoAuth);
            return;
        }
        if (nameAt > 0 && !TrySetName(ref ctx, ctx.Arg(nameAt))) return;
        if (version != 0) ctx.Client.Protocol = (int)version;

        var reply = new RespWriter(ctx.Reply.Output, ctx.Client.Protocol);
        reply.MapHeader(7);
        reply.Bulk("server"u8);
        reply.Bulk("redis"u8);
        reply.Bulk("version"u8);
        reply.Bulk(ServerInfo.Version);
        reply.Bulk("proto"u8);
        reply.Integer(ctx.Client.Protocol);
        reply.Bulk("id"u8);
        reply.Integer(ctx.Client.Id);
        reply.Bulk("mode"u8);
        reply.Bulk(ctx.Server.Mode);
        reply.Bulk("role"u8);
        reply.Bulk("master"u8);
        reply.Bulk("modules"u8);
        reply.Raw(Resp.EmptyArray);
    }

    /// <summary>
    /// AUTH [username] password — authenticates as the user (the one-argument form as "default");
    /// WRONGPASS for an unknown user, a wrong password or a user that is off, logged in the ACL log.
    /// </summary>
    public static void Auth(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 3)
        {
            ctx.Syntax();
            return;
        }
        ReadOnlySpan<byte> user = "default"u8, password;
        if (ctx.ArgCount == 2)
        {
            // Redis keeps the old error for the one-argument form when the default user has no password.
            if (ctx.Server.Acl.Default.State.NoPass)
            {
                ctx.Error(RespErrors.NoPasswordConfigured);
                return;
            }
            password = ctx.Arg(1);
        }
        else
        {
            user = ctx.Arg(1);
            password = ctx.Arg(2);
        }
        if (!Authenticate(ref ctx, user, password))
        {
            ctx.Error(RespErrors.WrongPass);
            return;
        }
        ctx.Reply.Ok();
    }

    /// <summary>
    /// Checks the user's password; on success the connection runs as that user from now on, on
    /// failure the attempt goes to the ACL log (object: the command's name as sent).
    /// </summary>
    private static bool Authenticate(ref CommandContext ctx, ReadOnlySpan<byte> user, ReadOnlySpan<byte> password)
    {
        var found = ctx.Server.Acl.Authenticate(user, password);
        if (found != null)
        {
            ctx.Client.User = found;
            ctx.Client.Authenticated = true;
            return true;
        }
        ctx.Server.Acl.Log.Add(Acl.AclResult.DeniedAuth, ctx.Client.InMulti ? Acl.AclLogContext.Multi : Acl.AclLogContext.TopLevel,
            Encoding.Latin1.GetString(ctx.Arg(0)), Encoding.Latin1.GetString(user), ClientInfoLine(ctx.Client), ctx.Server.Config.AclLogMaxLen);
        return false;
    }

    // ---------------------------------------------------------------- CLIENT

    /// <summary>CLIENT ID — the connection's id.</summary>
    public static void ClientId(ref CommandContext ctx) => ctx.Reply.Integer(ctx.Client.Id);

    /// <summary>CLIENT SETNAME connection-name — names the connection; an empty name removes it.</summary>
    public static void ClientSetName(ref CommandContext ctx)
    {
        if (TrySetName(ref ctx, ctx.Arg(2))) ctx.Reply.Ok();
    }

    /// <summary>CLIENT GETNAME — the name, or nil.</summary>
    public static void ClientGetName(ref CommandContext ctx)
    {
        string? name = ctx.Client.Name;
        if (name == null) ctx.Reply.NullBulk();
        else ctx.Reply.Bulk(Encoding.Latin1.GetBytes(name));
    }

    /// <summary>CLIENT SETINFO LIB-NAME|LIB-VER value — what library the client says it is; "" clears it.</summary>
    public static void ClientSetInfo(ref CommandContext ctx)
    {
        bool libName = ctx.ArgIs(2, "LIB-NAME");
        if (!libName && !ctx.ArgIs(2, "LIB-VER"))
        {
            ctx.Error(RespErrors.UnrecognizedOption(ctx.Arg(2)));
            return;
        }
        var value = ctx.Arg(3);
        if (!IsPrintableWord(value))
        {
            ctx.Error(RespErrors.ClientInfoInvalid(ctx.Arg(2)));
            return;
        }
        string? text = value.IsEmpty ? null : RespErrors.Latin(value);
        if (libName) ctx.Client.LibName = text;
        else ctx.Client.LibVersion = text;
        ctx.Reply.Ok();
    }

    /// <summary>CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] | [ID client-id [client-id ...]] — one line per client.</summary>
    public static void ClientList(ref CommandContext ctx)
    {
        var text = new StringBuilder();
        long nowMs = ctx.NowMs;
        if (ctx.ArgCount == 4 && ctx.ArgIs(2, "TYPE"))
        {
            if (!TryClientType(ref ctx, 3, out var type)) return;
            foreach (var client in ClientsInOrder(ctx.Server))
                if (TypeOf(client) == type) AppendClientInfo(text, ref ctx, client, nowMs);
        }
        else if (ctx.ArgCount > 3 && ctx.ArgIs(2, "ID"))
        {
            var ids = new long[ctx.ArgCount - 3];
            for (int j = 3; j < ctx.ArgCount; j++)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out ids[j - 3]))
                {
                    ctx.Error(RespErrors.InvalidClientId);
                    return;
                }
            }
            foreach (long id in ids)
                if (ctx.Server.Clients.TryGetValue(id, out var client) && !client.Killed) AppendClientInfo(text, ref ctx, client, nowMs);
        }
        else if (ctx.ArgCount != 2)
        {
            ctx.Syntax();
            return;
        }
        else
        {
            foreach (var client in ClientsInOrder(ctx.Server)) AppendClientInfo(text, ref ctx, client, nowMs);
        }
        ctx.Reply.Verbatim(Encoding.Latin1.GetBytes(text.ToString()));
    }

    /// <summary>CLIENT INFO — this connection's CLIENT LIST line.</summary>
    public static void ClientInfo(ref CommandContext ctx)
    {
        var text = new StringBuilder();
        AppendClientInfo(text, ref ctx, ctx.Client, ctx.NowMs);
        ctx.Reply.Verbatim(Encoding.Latin1.GetBytes(text.ToString()));
    }

    /// <summary>
    /// CLIENT KILL ip:port | CLIENT KILL [ID id] [TYPE type] [USER user] [ADDR ip:port] [LADDR ip:port]
    /// [SKIPME yes|no] [MAXAGE seconds] — closes matching connections. The old form replies OK or
    /// "No such client" and may close the caller; the filter form replies the count and skips the
    /// caller unless SKIPME no. The caller itself is closed only after its reply is written.
    /// </summary>
    public static void ClientKill(ref CommandContext ctx)
    {
        string? addr = null, laddr = null;
        Acl.AclUser? user = null;
        ClientType? type = null;
        long id = 0, maxAge = 0;
        bool skipMe = true;

        if (ctx.ArgCount == 3)
        {
            addr = ctx.ArgString(2);
            skipMe = false; // with the old form a client may kill itself
        }
        else
        {
            for (int i = 2; i < ctx.ArgCount; i += 2)
            {
                bool more = ctx.ArgCount > i + 1;
                if (more && ctx.ArgIs(i, "ID"))
                {
                    if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out id) || id < 1)
                    {
                        ctx.Error(RespErrors.ClientIdNotPositive);
                        return;
                    }
                }
                else if (more && ctx.ArgIs(i, "MAXAGE"))
                {
                    if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out maxAge))
                    {
                        ctx.Error(RespErrors.MaxAgeNotInteger);
                        return;
                    }
                    if (maxAge <= 0)
                    {
                        ctx.Error(RespErrors.MaxAgeNotPositive);
                        return;
                    }
                }
                else if (more && ctx.ArgIs(i, "TYPE"))
                {
                    if (!TryClientType(ref ctx, i + 1, out var t)) return;
                    type = t;
                }
                else if (more && ctx.ArgIs(i, "ADDR"))
                {
                    addr = ctx.ArgString(i + 1);
                }
                else if (more && ctx.ArgIs(i, "LADDR"))
                {
                    laddr = ctx.ArgString(i + 1);
                }
                else if (more && ctx.ArgIs(i, "USER"))
                {
                    user = ctx.Server.Acl.Find(ctx.Arg(i + 1));
                    if (user == null)
                    {
                        ctx.Error(RespErrors.NoSuchUser(ctx.Arg(i + 1)));
                        return;
                    }
                }
                else if (more && ctx.ArgIs(i, "SKIPME"))
                {
                    if (ctx.ArgIs(i + 1, "YES")) skipMe = true;
                    else if (ctx.ArgIs(i + 1, "NO")) skipMe = false;
                    else
                    {
                        ctx.Syntax();
                        return;
                    }
                }
                else
                {
                    ctx.Syntax();
                    return;
                }
            }
        }

        long killed = 0;
        bool closeSelf = false;
        long nowSeconds = ctx.NowMs / 1000;
        foreach (var client in ClientsInOrder(ctx.Server))
        {
            if (addr != null && client.Address != addr) continue;
            if (laddr != null && client.LocalAddress != laddr) continue;
            if (type != null && TypeOf(client) != type) continue;
            if (user != null && client.User != user) continue;
            if (id != 0 && client.Id != id) continue;
            if (client == ctx.Client && skipMe) continue;
            if (maxAge != 0 && nowSeconds - client.CreatedAtMs / 1000 < maxAge) continue;
            if (client == ctx.Client) closeSelf = true;
            else client.Kill();
            killed++;
        }

        if (ctx.ArgCount == 3)
        {
            if (killed == 0) ctx.Error(RespErrors.NoSuchClient);
            else ctx.Reply.Ok();
        }
        else
        {
            ctx.Reply.Integer(killed);
        }
        if (closeSelf) ctx.Client.CloseAfterReply = true;
    }

    /// <summary>CLIENT NO-EVICT ON|OFF — recorded (the flag shows in CLIENT LIST); there is no client eviction yet.</summary>
    public static void ClientNoEvict(ref CommandContext ctx)
    {
        if (ctx.ArgIs(2, "ON")) ctx.Client.NoEvict = true;
        else if (ctx.ArgIs(2, "OFF")) ctx.Client.NoEvict = false;
        else
        {
            ctx.Syntax();
            return;
        }
        ctx.Reply.Ok();
    }

    /// <summary>
    /// CLIENT NO-TOUCH ON|OFF — recorded on the session (flag T in CLIENT LIST) for the keyspace
    /// lookups to honour; they do not consult it yet, so reads still refresh OBJECT IDLETIME.
    /// </summary>
    public static void ClientNoTouch(ref CommandContext ctx)
    {
        if (ctx.ArgIs(2, "ON")) ctx.Client.NoTouch = true;
        else if (ctx.ArgIs(2, "OFF")) ctx.Client.NoTouch = false;
        else
        {
            ctx.Syntax();
            return;
        }
        ctx.Reply.Ok();
    }

    /// <summary>
    /// CLIENT REPLY ON|OFF|SKIP — OFF drops every reply until ON; SKIP drops the next command's.
    /// OFF and SKIP reply nothing themselves; ON replies +OK even when replies were off (the
    /// dispatcher lets this command's reply through).
    /// </summary>
    public static void ClientReply(ref CommandContext ctx)
    {
        if (ctx.ArgIs(2, "ON"))
        {
            ctx.Client.ReplyMode = ReplyMode.On;
            ctx.Reply.Ok();
        }
        else if (ctx.ArgIs(2, "OFF"))
        {
            ctx.Client.ReplyMode = ReplyMode.Off;
        }
        else if (ctx.ArgIs(2, "SKIP"))
        {
            // The dispatcher turns SkipNext into Skip once this command is done.
            if (ctx.Client.ReplyMode != ReplyMode.Off) ctx.Client.ReplyMode = ReplyMode.SkipNext;
        }
        else
        {
            ctx.Syntax();
        }
    }

    /// <summary>CLIENT GETREDIR — the id tracking messages are redirected to, 0 for none, -1 when not tracking.</summary>
    public static void ClientGetRedir(ref CommandContext ctx)
        => ctx.Reply.Integer((ctx.Client.Tracking & TrackingFlags.On) != 0 ? ctx.Client.TrackingRedirect : -1);

    /// <summary>
    /// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN]
    /// [OPTOUT] [NOLOOP] — turns client-side caching's invalidation messages on or off (see
    /// PubSub/ClientTracking.cs). The options are parsed first, then checked against each other and
    /// the client's current mode in Redis's order, each refusal with Redis's words.
    /// </summary>
    public static void ClientTracking(ref CommandContext ctx)
    {
        long redirect = 0;
        var options = TrackingFlags.None;
        var prefixes = new List<byte[]>();
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            bool more = ctx.ArgCount - 1 - j > 0;
            if (more && ctx.ArgIs(j, "REDIRECT"))
            {
                j++;
                if (redirect != 0)
                {
                    ctx.Error(RespErrors.TrackingOneRedirect);
                    return;
                }
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out redirect))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                // Checked now, though the client may go later (then the redirection is "broken").
                if (!ctx.Server.Clients.TryGetValue(redirect, out var target) || target.Killed)
                {
                    ctx.Error(RespErrors.TrackingRedirectMissing);
                    return;
                }
            }
            else if (ctx.ArgIs(j, "BCAST")) options |= TrackingFlags.Bcast;
            else if (ctx.ArgIs(j, "OPTIN")) options |= TrackingFlags.OptIn;
            else if (ctx.ArgIs(j, "OPTOUT")) options |= TrackingFlags.OptOut;
            else if (ctx.ArgIs(j, "NOLOOP")) options |= TrackingFlags.NoLoop;
            else if (more && ctx.ArgIs(j, "PREFIX"))
            {
                j++;
                prefixes.Add(ctx.Arg(j).ToArray());
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }

        var client = ctx.Client;
        if (ctx.ArgIs(2, "ON"))
        {
            var current = client.Tracking;
            if ((options & TrackingFlags.Bcast) == 0 && prefixes.Count > 0)
            {
                ctx.Error(RespErrors.TrackingPrefixNeedsBcast);
                return;
            }
            if ((current & TrackingFlags.On) != 0 && ((current & TrackingFlags.Bcast) != 0) != ((options & TrackingFlags.Bcast) != 0))
            {
                ctx.Error(RespErrors.TrackingBcastSwitch);
                return;
            }
            if ((options & TrackingFlags.Bcast) != 0 && (options & (TrackingFlags.OptIn | TrackingFlags.OptOut)) != 0)
            {
                ctx.Error(RespErrors.TrackingOptBcast);
                return;
            }
            if ((options & TrackingFlags.OptIn) != 0 && (options & TrackingFlags.OptOut) != 0)
            {
                ctx.Error(RespErrors.TrackingOptInAndOut);
                return;
            }
            if (((options & TrackingFlags.OptIn) != 0 && (current & TrackingFlags.OptOut) != 0)
                || ((options & TrackingFlags.OptOut) != 0 && (current & TrackingFlags.OptIn) != 0))
            {
                ctx.Error(RespErrors.TrackingOptSwitch);
                return;
            }
            if ((options & TrackingFlags.Bcast) != 0 && ctx.Server.Tracking.CheckPrefixes(client, prefixes) is { } overlap)
            {
                ctx.Error(overlap);
                return;
            }
            ctx.Server.Tracking.Enable(client, redirect, options, prefixes);
        }
        else if (ctx.ArgIs(2, "OFF"))
        {
            ctx.Server.Tracking.Disable(client);
        }
        else
        {
            ctx.Syntax();
            return;
        }
        ctx.Reply.Ok();
    }

    /// <summary>
    /// CLIENT CACHING YES|NO — in OPTIN mode YES has the next command's reads tracked; in OPTOUT
    /// mode NO has them not tracked. The flag lasts one command (or one MULTI ... EXEC).
    /// </summary>
    public static void ClientCaching(ref CommandContext ctx)
    {
        var client = ctx.Client;
        if ((client.Tracking & TrackingFlags.On) == 0)
        {
            ctx.Error(RespErrors.CachingNotTracking);
            return;
        }
        if (ctx.ArgIs(2, "YES"))
        {
            if ((client.Tracking & TrackingFlags.OptIn) == 0)
            {
                ctx.Error(RespErrors.CachingYesNeedsOptIn);
                return;
            }
        }
        else if (ctx.ArgIs(2, "NO"))
        {
            if ((client.Tracking & TrackingFlags.OptOut) == 0)
            {
                ctx.Error(RespErrors.CachingNoNeedsOptOut);
                return;
            }
        }
        else
        {
            ctx.Syntax();
            return;
        }
        client.Tracking |= TrackingFlags.Caching;
        ctx.Reply.Ok();
    }

    /// <summary>
    /// CLIENT TRACKINGINFO — a map: flags (a set: on/off, then bcast, optin with caching-yes, optout
    /// with caching-no, noloop, broken_redirect), redirect (as GETREDIR) and prefixes (BCAST's, in byte order).
    /// </summary>
    public static void ClientTrackingInfo(ref CommandContext ctx)
    {
        var client = ctx.Client;
        var t = client.Tracking;
        var flags = new List<string>(4) { (t & TrackingFlags.On) != 0 ? "on" : "off" };
        if ((t & TrackingFlags.Bcast) != 0) flags.Add("bcast");
        if ((t & TrackingFlags.OptIn) != 0)
        {
            flags.Add("optin");
            if ((t & TrackingFlags.Caching) != 0) flags.Add("caching-yes");
        }
        if ((t & TrackingFlags.OptOut) != 0)
        {
            flags.Add("optout");
            if ((t & TrackingFlags.Caching) != 0) flags.Add("caching-no");
        }
        if ((t & TrackingFlags.NoLoop) != 0) flags.Add("noloop");
        if ((t & TrackingFlags.BrokenRedirect) != 0) flags.Add("broken_redirect");

        ctx.Reply.MapHeader(3);
        ctx.Reply.Bulk("flags"u8);
        ctx.Reply.SetHeader(flags.Count);
        foreach (var f in flags) ctx.Reply.Bulk(f);
        ctx.Reply.Bulk("redirect"u8);
        ctx.Reply.Integer((t & TrackingFlags.On) != 0 ? client.TrackingRedirect : -1);
        ctx.Reply.Bulk("prefixes"u8);
        var prefixes = client.TrackingPrefixes;
        ctx.Reply.ArrayHeader(prefixes?.Count ?? 0);
        if (prefixes != null) foreach (var p in prefixes) ctx.Reply.Bulk(p);
    }

    /// <summary>
    /// CLIENT PAUSE timeout [WRITE|ALL] — holds every client's commands (ALL, the default) or those
    /// that may write (WRITE) for <c>timeout</c> milliseconds, and stops key expiry meanwhile (see
    /// Server/ClientPause.cs). A timeout of 0 pauses nothing.
    /// </summary>
    public static void ClientPause(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 4)
        {
            SubcommandSyntaxError(ref ctx);
            return;
        }
        if (ctx.ArgCount == 4 && !ctx.ArgIs(3, "WRITE") && !ctx.ArgIs(3, "ALL"))
        {
            ctx.Error(RespErrors.ClientPauseMode);
            return;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long timeout))
        {
            ctx.Error(RespErrors.TimeoutNotInteger);
            return;
        }
        if (timeout < 0)
        {
            ctx.Error(RespErrors.TimeoutNegative);
            return;
        }
        bool all = ctx.ArgCount != 4 || ctx.ArgIs(3, "ALL");
        if (timeout > 0) ctx.Server.Pause.Pause(timeout > long.MaxValue - ctx.NowMs ? long.MaxValue : ctx.NowMs + timeout, all);
        ctx.Reply.Ok();
    }

    /// <summary>CLIENT UNPAUSE — ends a CLIENT PAUSE: the clients it held run again, in the order they were held.</summary>
    public static void ClientUnpause(ref CommandContext ctx)
    {
        ctx.Server.Pause.Unpause();
        ctx.Reply.Ok();
    }

    /// <summary>CLIENT HELP — the subcommands this server implements, with Redis's syntax lines.</summary>
    public static void ClientHelp(ref CommandContext ctx) => ClientHelpText.Write(ref ctx);

    // ---------------------------------------------------------------- helpers

    /// <summary>Redis's "unknown subcommand or wrong number of arguments for 'x'. Try CLIENT HELP."</summary>
    private static void SubcommandSyntaxError(ref CommandContext ctx)
        => ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));

    /// <summary>Sets the connection name (SETNAME, HELLO SETNAME), or replies the error and returns false.</summary>
    private static bool TrySetName(ref CommandContext ctx, ReadOnlySpan<byte> name)
    {
        if (!IsPrintableWord(name))
        {
            ctx.Error(RespErrors.ClientNameInvalid);
            return false;
        }
        ctx.Client.Name = name.IsEmpty ? null : RespErrors.Latin(name);
        return true;
    }

    /// <summary>Only '!'..'~': CLIENT LIST must stay splittable on spaces.</summary>
    private static bool IsPrintableWord(ReadOnlySpan<byte> value)
    {
        foreach (byte b in value)
            if (b < (byte)'!' || b > (byte)'~') return false;
        return true;
    }

    private static bool TryClientType(ref CommandContext ctx, int arg, out ClientType type)
    {
        if (ctx.ArgIs(arg, "NORMAL")) type = ClientType.Normal;
        else if (ctx.ArgIs(arg, "SLAVE") || ctx.ArgIs(arg, "REPLICA")) type = ClientType.Replica;
        else if (ctx.ArgIs(arg, "PUBSUB")) type = ClientType.PubSub;
        else if (ctx.ArgIs(arg, "MASTER")) type = ClientType.Master;
        else
        {
            type = default;
            ctx.Error(RespErrors.UnknownClientType(ctx.Arg(arg)));
            return false;
        }
        return true;
    }

    /// <summary>
    /// Redis's getClientType: a replica (SYNC/PSYNC) is "replica"; a client subscribed to anything is
    /// "pubsub" (a MONITOR stays "normal").
    /// </summary>
    private static ClientType TypeOf(ClientSession client)
        => client.IsReplica ? ClientType.Replica : client.IsMaster ? ClientType.Master : client.InPubSubMode ? ClientType.PubSub : ClientType.Normal;

    /// <summary>
    /// Clients oldest first, as Redis's client list keeps them. A killed client leaves the registry
    /// only once its connection has wound down; Redis frees it at once, so it is left out here.
    /// </summary>
    private static List<ClientSession> ClientsInOrder(RedisServer server)
    {
        var list = new List<ClientSession>(server.Clients.Count);
        foreach (var client in server.Clients.Values)
            if (!client.Killed) list.Add(client);
        list.Sort((a, b) => a.Id.CompareTo(b.Id));
        return list;
    }

    /// <summary>
    /// One CLIENT LIST line in Redis 7.2's field order, the buffer fields measured from the
    /// connection when the line is written (see <see cref="ClientBufferUsage"/>):
    /// <list type="bullet">
    /// <item>qbuf: bytes received and not yet run — unparsed input plus the received part of an
    /// argument still arriving (the parser takes a big one as it comes). For the client running CLIENT LIST
    /// itself, Redis still holds that command in its query buffer (qbuf=26 for CLIENT INFO): we count
    /// its size on the wire instead, the parsed copy being argv-mem. qbuf-free: room the next receive has.</item>
    /// <item>argv-mem: the running command's argument bytes for the client running this, a blocked
    /// client's blocking command's, and for the others the arguments parsed of a command still
    /// arriving (or of a batch being run), as Redis holds those in argv.
    /// multi-mem: queued MULTI arguments plus 8 bytes per argument (our index entry; Redis's robj pointer).</item>
    /// <item>rbs/rbp/obl: the 16 KB reply buffer's size, peak and unsent bytes; oll/omem: the further
    /// reply blocks (count, bytes). rbp is the most the buffer held when it overflowed, or holds now:
    /// Redis updates it on every reply, which we do not pay for; it resets when the buffer is
    /// given back on an idle connection, where Redis resets it every 5 s.</item>
    /// <item>tot-mem: receive blocks, parse arena, reply blocks and multi-mem; argv-mem is inside the arena.
    /// Redis also counts its client struct (about 2 KB); we count only buffers.</item>
    /// <item>events: rw while replies wait for the socket to take them, as Redis then also waits for writable.</item>
    /// </list>
    /// </summary>
    private static void AppendClientInfo(StringBuilder sb, ref CommandContext ctx, ClientSession c, long nowMs)
    {
        long argvMem = 0, wire = 0;
        if (c == ctx.Client)
        {
            for (int i = 0; i < ctx.ArgCount; i++) argvMem += ctx.Arg(i).Length;
            wire = WireSize(ref ctx);
        }
        AppendClientInfo(sb, c, nowMs, c == ctx.Client, argvMem, wire);
    }

    /// <summary>
    /// A client's CLIENT LIST line without the command running (the ACL log's client-info): the
    /// running command's own sizes are not counted.
    /// </summary>
    public static string ClientInfoLine(ClientSession c)
    {
        var sb = new StringBuilder(256);
        AppendClientInfo(sb, c, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(), isCurrent: false, 0, 0);
        return sb.ToString(0, sb.Length - 1);
    }

    private static void AppendClientInfo(StringBuilder sb, ClientSession c, long nowMs, bool isCurrent, long currentArgvMem, long currentWire)
    {
        var flags = new StringBuilder(4);
        if (c.IsReplica) flags.Append('S');
        if (c.IsMonitor) flags.Append('O');
        if (c.IsMaster) flags.Append('M');
        if (c.InPubSubMode) flags.Append('P');
        if (c.InMulti) flags.Append('x');
        if (c.Blocked != null || c.Paused) flags.Append('b');
        if ((c.Tracking & TrackingFlags.On) != 0) flags.Append('t');
        if ((c.Tracking & TrackingFlags.BrokenRedirect) != 0) flags.Append('R');
        if ((c.Tracking & TrackingFlags.Bcast) != 0) flags.Append('B');
        if (c.WatchDirty) flags.Append('d');
        if (c.CloseAfterReply) flags.Append('c');
        if (c.UnixSocket) flags.Append('U');
        if ((c.ClusterFlags & Cluster.ClientClusterFlags.ReadOnly) != 0) flags.Append('r');
        if (c.NoEvict) flags.Append('e');
        if (c.NoTouch) flags.Append('T');
        if (flags.Length == 0) flags.Append('N');

        var u = c.MeasureBuffers();
        long argvMem = 0, qbuf = u.QueryBytes;
        if (isCurrent)
        {
            argvMem = currentArgvMem;
            qbuf += currentWire;
        }
        else if (c.Blocked != null)
        {
            argvMem = u.ParseBytes; // the blocking command's arguments, held while it waits
        }
        else
        {
            // As Redis: the arguments of a command still arriving are in argv, the one still
            // arriving in the query buffer (a 100 KB value half sent: qbuf=50000 argv-mem=4 for SET k).
            argvMem = Math.Max(0, u.ParseBytes - u.PartialArgBytes);
            qbuf += u.PartialArgBytes;
        }
        long multiMem = c.MultiMemoryBytes;
        long totMem = u.AllocatedBytes + multiMem;

        sb.Append("id=").Append(c.Id)
          .Append(" addr=").Append(c.Address)
          .Append(" laddr=").Append(c.LocalAddress)
          .Append(" fd=").Append(c.Buffers?.Fd ?? -1)
          .Append(" name=").Append(c.Name)
          .Append(" age=").Append(Math.Max(0, (nowMs - c.CreatedAtMs) / 1000))
          .Append(" idle=").Append(Math.Max(0, (nowMs - c.LastInteractionMs) / 1000))
          .Append(" flags=").Append(flags)
          .Append(" db=").Append(c.Db)
          .Append(" sub=").Append(c.Subscriptions(0).Count)
          .Append(" psub=").Append(c.Subscriptions(1).Count)
          .Append(" ssub=").Append(c.Subscriptions(2).Count)
          .Append(" multi=").Append(c.InMulti ? c.QueuedDefs?.Count ?? 0 : -1)
          .Append(" watch=").Append(c.Watched?.Count ?? 0) // Redis 7.4: the keys this client WATCHes
          .Append(" qbuf=").Append(qbuf)
          .Append(" qbuf-free=").Append(u.QueryFree)
          .Append(" argv-mem=").Append(argvMem)
          .Append(" multi-mem=").Append(multiMem)
          .Append(" rbs=").Append(u.ReplyBufferSize)
          .Append(" rbp=").Append(u.ReplyBufferPeak)
          .Append(" obl=").Append(u.ReplyBufferBytes)
          .Append(" oll=").Append(u.ReplyBlocks)
          .Append(" omem=").Append(u.ReplyBlockBytes)
          .Append(" tot-mem=").Append(totMem)
          .Append(u.WritePending ? " events=rw" : " events=r")
          .Append(" cmd=").Append(c.LastCommand)
          .Append(" user=").Append(c.User?.Name ?? (c.IsMaster ? "(superuser)" : DefaultUser))
          .Append(" redir=").Append((c.Tracking & TrackingFlags.On) != 0 ? c.TrackingRedirect : -1)
          .Append(" resp=").Append(c.Protocol)
          .Append(" lib-name=").Append(c.LibName)
          .Append(" lib-ver=").Append(c.LibVersion)
          .Append('\n');
    }

    /// <summary>The running command's size as a multibulk request: *N, then $len and the bytes of each argument.</summary>
    private static long WireSize(ref CommandContext ctx)
    {
        long size = 1 + RedisNumbers.DigitCount(ctx.ArgCount) + 2;
        for (int i = 0; i < ctx.ArgCount; i++)
        {
            int length = ctx.Arg(i).Length;
            size += 1 + RedisNumbers.DigitCount(length) + 2 + length + 2;
        }
        return size;
    }
}
