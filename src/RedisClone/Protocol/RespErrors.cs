namespace RedisClone.Protocol;

/// <summary>
/// Redis's error replies, with their exact texts, in one place: here the ones several commands
/// share, the dispatcher's and the connection's; in RespErrors.Commands.cs those of one family.
/// </summary>
/// <remarks>
/// A fixed text is a whole reply line ("-ERR ...\r\n"u8), written as it is. A text built from
/// arguments is a string without the '-' and the CRLF, and goes through the string writer, which
/// turns CR and LF into spaces as Redis does.
/// </remarks>
internal static partial class RespErrors
{
    // Arguments and values, shared by several families.
    public static ReadOnlySpan<byte> WrongType => "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"u8;
    public static ReadOnlySpan<byte> Syntax => "-ERR syntax error\r\n"u8;
    public static ReadOnlySpan<byte> NotInteger => "-ERR value is not an integer or out of range\r\n"u8;
    public static ReadOnlySpan<byte> NotFloat => "-ERR value is not a valid float\r\n"u8;
    public static ReadOnlySpan<byte> Overflow => "-ERR increment or decrement would overflow\r\n"u8;
    public static ReadOnlySpan<byte> NoSuchKey => "-ERR no such key\r\n"u8;
    public static ReadOnlySpan<byte> StringTooLong => "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"u8;
    public static ReadOnlySpan<byte> DbIndexOutOfRange => "-ERR DB index is out of range\r\n"u8;
    public static ReadOnlySpan<byte> SameObject => "-ERR source and destination objects are the same\r\n"u8;
    public static ReadOnlySpan<byte> NanOrInfinity => "-ERR increment would produce NaN or Infinity\r\n"u8;
    public static ReadOnlySpan<byte> OffsetOutOfRange => "-ERR offset is out of range\r\n"u8;
    public static ReadOnlySpan<byte> CursorInvalid => "-ERR invalid cursor\r\n"u8;
    public static ReadOnlySpan<byte> TimeoutNegative => "-ERR timeout is negative\r\n"u8;
    public static ReadOnlySpan<byte> NumKeysNotPositive => "-ERR numkeys should be greater than 0\r\n"u8;
    public static ReadOnlySpan<byte> CountNotPositive => "-ERR count should be greater than 0\r\n"u8;
    public static ReadOnlySpan<byte> LimitNegative => "-ERR LIMIT can't be negative\r\n"u8;

    // Three "value is out of range" texts, each where Redis uses it: the plain one (HRANDFIELD and
    // ZRANDMEMBER counts that cannot be doubled or served), one for counts that must be positive,
    // one for a count of LONG_MIN.
    public static ReadOnlySpan<byte> ValueOutOfRange => "-ERR value is out of range\r\n"u8;
    public static ReadOnlySpan<byte> NotPositive => "-ERR value is out of range, must be positive\r\n"u8;
    public static ReadOnlySpan<byte> CountOutOfRange => "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n"u8;
    /// <summary>
    /// Ours, not Redis's: Redis 7.0 tries to serve any negative SRANDMEMBER/ZRANDMEMBER count and runs
    /// out of memory on huge ones; we refuse a count whose reply would exceed proto-max-bulk-len.
    /// </summary>
    public static ReadOnlySpan<byte> ReplyTooLarge => "-ERR value is out of range, the reply to this count would exceed proto-max-bulk-len\r\n"u8;

    // Outside the handlers: the listener, the dispatcher's checks, EXEC, blocked clients.
    public static ReadOnlySpan<byte> MaxClients => "-ERR max number of clients reached\r\n"u8;
    public static ReadOnlySpan<byte> ProtectedMode =>
        "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Set up an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"u8;
    public static ReadOnlySpan<byte> ExecAbort => "-EXECABORT Transaction discarded because of previous errors.\r\n"u8;

    /// <summary>EXEC itself rejected (BUSY, arity...): Redis's execCommandAbort names the reason, without its code's dash.</summary>
    public static string ExecAbortBecause(string error)
        => "EXECABORT Transaction discarded because of: " + (error.StartsWith("ERR ", StringComparison.Ordinal) ? error[4..] : error);
    public static ReadOnlySpan<byte> Unblocked => "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"u8;
    public static ReadOnlySpan<byte> UnblockedRoleChange => "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\r\n"u8;
    // These two are strings: the dispatcher's checks hand their error on as text, like the formatted ones below.
    public const string NotAllowedInMulti = "ERR Command not allowed inside a transaction";
    public const string ReplicaKeyspace = "ERR Replica can't interact with the keyspace";
    public const string NoAuth = "NOAUTH Authentication required.";
    public const string NoPermExec = "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: ";

    public static string WrongArity(string fullName) => $"ERR wrong number of arguments for '{fullName}' command";

    public static string UnknownSubcommand(ReadOnlySpan<byte> sub, string container)
        => $"ERR unknown subcommand '{Truncate(sub, 128)}'. Try {container.ToUpperInvariant()} HELP.";

    /// <summary>Redis: the name (128 chars at most) and the first arguments, quoted, up to 128 chars in all.</summary>
    public static string UnknownCommand(ReadOnlySpan<byte> name, Func<int, string> arg, int argc)
    {
        var args = new System.Text.StringBuilder();
        for (int i = 1; i < argc && args.Length < 128; i++)
        {
            string a = arg(i);
            int room = 128 - args.Length;
            args.Append('\'').Append(a.Length > room ? a.Substring(0, room) : a).Append("' ");
        }
        return $"ERR unknown command '{Truncate(name, 128)}', with args beginning with: {args}";
    }

    /// <summary>
    /// "unknown subcommand or wrong number of arguments for 'x'. Try CMD HELP." for a container
    /// command that knows the name but not with this many arguments (or not at all).
    /// </summary>
    public static string SubcommandSyntax(ReadOnlySpan<byte> command, ReadOnlySpan<byte> sub)
        => $"ERR unknown subcommand or wrong number of arguments for '{Truncate(UpToNul(sub), 128)}'. Try {Latin(command).ToUpperInvariant()} HELP.";

    /// <summary>A RESP2 client with subscriptions ran something other than the subscribe family, PING, QUIT or RESET.</summary>
    public static string NotAllowedWhileSubscribed(string fullName)
        => $"ERR Can't execute '{fullName}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";

    /// <summary>"ERR " and a text made elsewhere: the parser's protocol error, an unexpected exception's message.</summary>
    public static string Err(string message) => "ERR " + message;

    // Protocol errors: RespParser.Error holds one of these (the text after "-ERR "); the connection
    // answers it through Err, then closes.
    public const string ProtocolTooBigMultibulkCount = "Protocol error: too big mbulk count string";
    public const string ProtocolInvalidMultibulkLength = "Protocol error: invalid multibulk length";
    public const string ProtocolUnauthenticatedMultibulk = "Protocol error: unauthenticated multibulk length";
    public const string ProtocolUnauthenticatedBulk = "Protocol error: unauthenticated bulk length";
    public const string ProtocolTooBigBulkCount = "Protocol error: too big bulk count string";
    public const string ProtocolInvalidBulkLength = "Protocol error: invalid bulk length";
    public const string ProtocolTooBigInline = "Protocol error: too big inline request";
    public const string ProtocolUnbalancedQuotes = "Protocol error: unbalanced quotes in request";
    public static string ProtocolExpectedDollar(byte got) => $"Protocol error: expected '$', got '{(char)got}'";

    /// <summary>Redis prints user arguments into errors with %s, which stops at a NUL byte.</summary>
    public static ReadOnlySpan<byte> UpToNul(ReadOnlySpan<byte> text)
    {
        int nul = text.IndexOf((byte)0);
        return nul < 0 ? text : text.Slice(0, nul);
    }

    public static string Truncate(ReadOnlySpan<byte> bytes, int max)
        => Latin(bytes.Length > max ? bytes.Slice(0, max) : bytes);

    /// <summary>Bytes to a string one char per byte, so non-UTF-8 input round-trips into error texts.</summary>
    public static string Latin(ReadOnlySpan<byte> bytes) => System.Text.Encoding.Latin1.GetString(bytes);
}
