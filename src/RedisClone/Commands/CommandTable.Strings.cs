using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The strings family (handlers in <see cref="StringCommands"/>).</summary>
    private static IEnumerable<CommandDef> StringRows() =>
    [
        new("get", 2, ReadOnly | Fast, StringCommands.Get, keys: "RO access", group: "string")
        {
            Summary = "Returns the string stored at a key, or nil when the key does not exist.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("set", -3, Write | DenyOom, StringCommands.Set,
            keys: "RW access update variable_flags -- RW and ACCESS due to the optional `GET` argument", group: "string")
        {
            Summary = "Stores a string at a key; options set an expiry, a condition on existence, or return the old value.",
            Since = "1.0.0", Complexity = "O(1)",
            // IFEQ is Valkey 8.1's (Redis 8.4 has its own, with IFNE, IFDEQ and IFDNE beside it).
            Args = "key:key value [condition(NX | XX | IFEQ=comparison-value:string@8.1.0)@2.6.12] [GET@6.2.0] [expiration(EX=seconds:integer@2.6.12 | "
                + "PX=milliseconds:integer@2.6.12 | EXAT=unix-time-seconds:unix-time@6.2.0 | "
                + "PXAT=unix-time-milliseconds:unix-time@6.2.0 | KEEPTTL@6.0.0)]",
            History = "2.6.12: EX, PX, NX and XX options; 6.0.0: KEEPTTL option; 6.2.0: GET, EXAT and PXAT options; 7.0.0: NX may be combined with GET; "
                + "8.1.0: IFEQ option (Valkey)",
            VarFlags = SetKeyFlags,
        },
        new("setnx", 3, Write | DenyOom | Fast, StringCommands.SetNx, keys: "OW insert", group: "string")
        {
            Summary = "Stores a string at a key only when the key does not exist yet.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key value",
        },
        new("setex", 4, Write | DenyOom, StringCommands.SetEx, keys: "OW update", group: "string")
        {
            Summary = "Stores a string at a key with a time to live in seconds.",
            Since = "2.0.0", Complexity = "O(1)", Args = "key:key seconds:integer value",
        },
        new("psetex", 4, Write | DenyOom, StringCommands.PSetEx, keys: "OW update", group: "string")
        {
            Summary = "Stores a string at a key with a time to live in milliseconds.",
            Since = "2.6.0", Complexity = "O(1)", Args = "key:key milliseconds:integer value",
        },
        new("getset", 3, Write | DenyOom | Fast, StringCommands.GetSet, keys: "RW access update", group: "string")
        {
            Summary = "Stores a new string at a key and returns the string it held before.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key value", DeprecatedSince = "6.2.0", ReplacedBy = "SET with GET",
        },
        // Valkey 9.0. ACCESS (as in one of Valkey's versions of its key spec): the 0/1 reply tells
        // whether the value equals a guess, so a write-only key permission (%W) must not suffice.
        new("delifeq", 3, Write | Fast, StringCommands.DelIfEq, keys: "RM access delete", group: "string")
        {
            Summary = "Deletes a key only while it holds the given string, as a lock's owner releases it (Valkey).",
            Since = "9.0.0", Complexity = "O(1)", Args = "key:key value",
        },
        new("getdel", 2, Write | Fast, StringCommands.GetDel, keys: "RW access delete", group: "string")
        {
            Summary = "Returns the string at a key and deletes the key.",
            Since = "6.2.0", Complexity = "O(1)", Args = "key:key",
        },
        new("getex", -2, Write | Fast, StringCommands.GetEx, keys: "RW access update -- RW and UPDATE because it changes the TTL",
            group: "string")
        {
            Summary = "Returns the string at a key and changes or removes its expiry.",
            Since = "6.2.0", Complexity = "O(1)",
            Args = "key:key [expiration(EX=seconds:integer | PX=milliseconds:integer | EXAT=unix-time-seconds:unix-time | "
                + "PXAT=unix-time-milliseconds:unix-time | PERSIST)]",
        },
        new("mget", -2, ReadOnly | Fast, StringCommands.MGet, keys: "RO access r=-1,1,0", group: "string")
        {
            Summary = "Returns the strings stored at several keys, nil for the missing ones.",
            Since = "1.0.0", Complexity = "O(N), N = keys requested", Args = "key:key...", Tips = "request_policy:multi_shard",
        },
        new("mset", -3, Write | DenyOom, StringCommands.MSet, keys: "OW update r=-1,2,0", group: "string")
        {
            Summary = "Stores strings at several keys at once.",
            Since = "1.0.1", Complexity = "O(N), N = keys written", Args = "key_value{key:key value}...",
            Tips = "request_policy:multi_shard response_policy:all_succeeded",
        },
        new("msetnx", -3, Write | DenyOom, StringCommands.MSetNx, keys: "OW insert r=-1,2,0", group: "string")
        {
            Summary = "Stores strings at several keys at once, only when none of the keys exists.",
            Since = "1.0.1", Complexity = "O(N), N = keys written", Args = "key_value{key:key value}...",
            Tips = "request_policy:multi_shard response_policy:agg_min",
        },
        new("incr", 2, Write | DenyOom | Fast, StringCommands.Incr, keys: "RW access update", group: "string")
        {
            Summary = "Adds one to the integer stored at a key, starting from 0 when missing.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("incrby", 3, Write | DenyOom | Fast, StringCommands.IncrBy, keys: "RW access update", group: "string")
        {
            Summary = "Adds an integer to the integer stored at a key, starting from 0 when missing.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key increment:integer",
        },
        new("decr", 2, Write | DenyOom | Fast, StringCommands.Decr, keys: "RW access update", group: "string")
        {
            Summary = "Subtracts one from the integer stored at a key, starting from 0 when missing.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("decrby", 3, Write | DenyOom | Fast, StringCommands.DecrBy, keys: "RW access update", group: "string")
        {
            Summary = "Subtracts an integer from the integer stored at a key, starting from 0 when missing.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key decrement:integer",
        },
        new("incrbyfloat", 3, Write | DenyOom | Fast, StringCommands.IncrByFloat, keys: "RW access update", group: "string")
        {
            Summary = "Adds a floating point number to the number stored at a key, starting from 0 when missing.",
            Since = "2.6.0", Complexity = "O(1)", Args = "key:key increment:double",
        },
        new("append", 3, Write | DenyOom | Fast, StringCommands.Append, keys: "RW insert", group: "string")
        {
            Summary = "Appends bytes to the string at a key, creating it when missing; returns the new length.",
            Since = "2.0.0", Complexity = "O(1) amortized", Args = "key:key value",
        },
        new("strlen", 2, ReadOnly | Fast, StringCommands.StrLen, keys: "RO", group: "string")
        {
            Summary = "Returns the length in bytes of the string stored at a key.",
            Since = "2.2.0", Complexity = "O(1)", Args = "key:key",
        },
        new("getrange", 4, ReadOnly, StringCommands.GetRange, keys: "RO access", group: "string")
        {
            Summary = "Returns a byte range of the string stored at a key.",
            Since = "2.4.0", Complexity = "O(N), N = bytes returned", Args = "key:key start:integer end:integer",
        },
        new("substr", 4, ReadOnly, StringCommands.GetRange, keys: "RO access", group: "string")
        {
            Summary = "Returns a byte range of the string stored at a key (old name of GETRANGE).",
            Since = "1.0.0", Complexity = "O(N), N = bytes returned", Args = "key:key start:integer end:integer",
            DeprecatedSince = "2.0.0", ReplacedBy = "GETRANGE",
        },
        new("setrange", 4, Write | DenyOom, StringCommands.SetRange, keys: "RW update", group: "string")
        {
            Summary = "Overwrites part of the string at a key from an offset, zero-padding as needed.",
            Since = "2.2.0", Complexity = "O(1) plus the copy of the new bytes", Args = "key:key offset:integer value",
        },
        new("lcs", -3, ReadOnly, StringCommands.Lcs, keys: "RO access r=1,1,0", group: "string")
        {
            Summary = "Finds the longest common subsequence of the strings at two keys.",
            Since = "7.0.0", Complexity = "O(N*M), N and M = the two lengths",
            Args = "key1:key key2:key#0 [LEN] [IDX] [MINMATCHLEN=len:integer] [WITHMATCHLEN]",
        },
    ];

    /// <summary>SET: overwrite unless GET or IFEQ is given, which read the old value first.</summary>
    private static KeySpecFlags SetKeyFlags(byte[][] args, int keyPosition, KeySpecFlags specFlags)
    {
        // GET reads the old value; so does IFEQ (its outcome tells whether the value equals a guess).
        for (int i = 3; i < args.Length; i++)
            if (System.Text.Ascii.EqualsIgnoreCase(args[i], "GET"u8) || System.Text.Ascii.EqualsIgnoreCase(args[i], "IFEQ"u8))
                return KeySpecFlags.RW | KeySpecFlags.Access | KeySpecFlags.Update;
        return KeySpecFlags.OW | KeySpecFlags.Update;
    }
}
