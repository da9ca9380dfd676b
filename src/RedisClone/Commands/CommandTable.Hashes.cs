using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The hashes family (handlers in <see cref="HashCommands"/>).</summary>
    private static IEnumerable<CommandDef> HashRows() =>
    [
        new("hset", -4, Write | DenyOom | Fast, HashCommands.HSet, keys: "RW update", group: "hash")
        {
            Summary = "Stores field-value pairs in a hash, creating it when missing; returns how many fields were new.",
            Since = "2.0.0", Complexity = "O(1) per pair", Args = "key:key field_value{field value}...",
            History = "4.0.0: Several field-value pairs accepted",
        },
        new("hsetnx", 4, Write | DenyOom | Fast, HashCommands.HSetNx, keys: "RW insert", group: "hash")
        {
            Summary = "Stores a field in a hash only when the field does not exist yet.",
            Since = "2.0.0", Complexity = "O(1)", Args = "key:key field value",
        },
        new("hmset", -4, Write | DenyOom | Fast, HashCommands.HMSet, keys: "RW update", group: "hash")
        {
            Summary = "Stores field-value pairs in a hash (older form of HSET that replies OK).",
            Since = "2.0.0", Complexity = "O(N), N = pairs", Args = "key:key field_value{field value}...",
            DeprecatedSince = "4.0.0", ReplacedBy = "`HSET` with multiple field-value pairs",
        },
        new("hget", 3, ReadOnly | Fast, HashCommands.HGet, keys: "RO access", group: "hash")
        {
            Summary = "Returns the value of a field of a hash, or nil.",
            Since = "2.0.0", Complexity = "O(1)", Args = "key:key field",
        },
        new("hmget", -3, ReadOnly | Fast, HashCommands.HMGet, keys: "RO access", group: "hash")
        {
            Summary = "Returns the values of several fields of a hash, nil for the missing ones.",
            Since = "2.0.0", Complexity = "O(N), N = fields requested", Args = "key:key field...",
        },
        new("hgetall", 2, ReadOnly, HashCommands.HGetAll, keys: "RO access", group: "hash")
        {
            Summary = "Returns every field and value of a hash.",
            Since = "2.0.0", Complexity = "O(N), N = fields in the hash", Args = "key:key", Tips = "nondeterministic_output_order",
        },
        new("hkeys", 2, ReadOnly, HashCommands.HKeys, keys: "RO access", group: "hash")
        {
            Summary = "Returns every field name of a hash.",
            Since = "2.0.0", Complexity = "O(N), N = fields in the hash", Args = "key:key", Tips = "nondeterministic_output_order",
        },
        new("hvals", 2, ReadOnly, HashCommands.HVals, keys: "RO access", group: "hash")
        {
            Summary = "Returns every value of a hash.",
            Since = "2.0.0", Complexity = "O(N), N = fields in the hash", Args = "key:key", Tips = "nondeterministic_output_order",
        },
        new("hlen", 2, ReadOnly | Fast, HashCommands.HLen, keys: "RO", group: "hash")
        {
            Summary = "Returns the number of fields in a hash.",
            Since = "2.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("hexists", 3, ReadOnly | Fast, HashCommands.HExists, keys: "RO", group: "hash")
        {
            Summary = "Tells whether a field exists in a hash.",
            Since = "2.0.0", Complexity = "O(1)", Args = "key:key field",
        },
        new("hdel", -3, Write | Fast, HashCommands.HDel, keys: "RW delete", group: "hash")
        {
            Summary = "Removes fields from a hash, deleting the key when it empties; returns how many existed.",
            Since = "2.0.0", Complexity = "O(N), N = fields removed", Args = "key:key field...",
            History = "2.4.0: Several fields accepted",
        },
        new("hstrlen", 3, ReadOnly | Fast, HashCommands.HStrLen, keys: "RO", group: "hash")
        {
            Summary = "Returns the length in bytes of a field's value, 0 when missing.",
            Since = "3.2.0", Complexity = "O(1)", Args = "key:key field",
        },
        new("hincrby", 4, Write | DenyOom | Fast, HashCommands.HIncrBy, keys: "RW access update", group: "hash")
        {
            Summary = "Adds an integer to the integer in a field of a hash, starting from 0 when missing.",
            Since = "2.0.0", Complexity = "O(1)", Args = "key:key field increment:integer",
        },
        new("hincrbyfloat", 4, Write | DenyOom | Fast, HashCommands.HIncrByFloat, keys: "RW access update", group: "hash")
        {
            Summary = "Adds a floating point number to the number in a field of a hash, starting from 0 when missing.",
            Since = "2.6.0", Complexity = "O(1)", Args = "key:key field increment:double",
        },
        new("hrandfield", -2, ReadOnly, HashCommands.HRandField, keys: "RO access", group: "hash")
        {
            Summary = "Returns random fields of a hash, optionally with their values; a negative count allows repeats.",
            Since = "6.2.0", Complexity = "O(N), N = fields returned", Args = "key:key [options{count:integer [WITHVALUES]}]",
            Tips = "nondeterministic_output",
        },
        new("hscan", -3, ReadOnly, HashCommands.HScan, keys: "RO access", group: "hash")
        {
            Summary = "Walks the fields and values of a hash a batch at a time with a cursor.",
            Since = "2.8.0", Complexity = "O(1) per call, O(N) for a whole walk",
            Args = "key:key cursor:integer [MATCH=pattern:pattern] [COUNT=count:integer] [NOVALUES@7.4.0]", Tips = "nondeterministic_output",
            History = "7.4.0: NOVALUES option",
        },

        // Hash-field expiry (Redis 7.4 and 8.0; see HashCommands.FieldExpiry.cs).
        new("hexpire", -6, Write | DenyOom | Fast, HashCommands.HExpire, keys: "RW update", group: "hash")
        {
            Summary = "Gives fields of a hash a time to live in seconds; per field -2 missing, 0 condition not met, 1 set, 2 deleted (time past).",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = ExpireArgs("seconds:integer"),
        },
        new("hpexpire", -6, Write | DenyOom | Fast, HashCommands.HPExpire, keys: "RW update", group: "hash")
        {
            Summary = "Gives fields of a hash a time to live in milliseconds; per field -2, 0, 1 or 2 as HEXPIRE.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = ExpireArgs("milliseconds:integer"),
        },
        new("hexpireat", -6, Write | DenyOom | Fast, HashCommands.HExpireAt, keys: "RW update", group: "hash")
        {
            Summary = "Makes fields of a hash expire at a Unix time in seconds; per field -2, 0, 1 or 2 as HEXPIRE.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = ExpireArgs("unix-time-seconds:unix-time"),
        },
        new("hpexpireat", -6, Write | DenyOom | Fast, HashCommands.HPExpireAt, keys: "RW update", group: "hash")
        {
            Summary = "Makes fields of a hash expire at a Unix time in milliseconds; per field -2, 0, 1 or 2 as HEXPIRE.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = ExpireArgs("unix-time-milliseconds:unix-time"),
        },
        new("httl", -5, ReadOnly | Fast, HashCommands.HTtl, keys: "RO access", group: "hash")
        {
            Summary = "Returns the seconds left to live of fields of a hash; -1 for a field without expiry, -2 for a missing one.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = FieldsArgs,
        },
        new("hpttl", -5, ReadOnly | Fast, HashCommands.HPTtl, keys: "RO access", group: "hash")
        {
            Summary = "Returns the milliseconds left to live of fields of a hash; -1 without expiry, -2 missing.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = FieldsArgs,
        },
        new("hexpiretime", -5, ReadOnly | Fast, HashCommands.HExpireTime, keys: "RO access", group: "hash")
        {
            Summary = "Returns the Unix time in seconds at which fields of a hash expire; -1 without expiry, -2 missing.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = FieldsArgs,
        },
        new("hpexpiretime", -5, ReadOnly | Fast, HashCommands.HPExpireTime, keys: "RO access", group: "hash")
        {
            Summary = "Returns the Unix time in milliseconds at which fields of a hash expire; -1 without expiry, -2 missing.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = FieldsArgs,
        },
        new("hpersist", -5, Write | Fast, HashCommands.HPersist, keys: "RW update", group: "hash")
        {
            Summary = "Removes the expiry of fields of a hash; per field 1 removed, -1 had none, -2 missing.",
            Since = "7.4.0", Complexity = "O(N), N = fields given", Args = FieldsArgs,
        },
        new("hgetdel", -5, Write | Fast, HashCommands.HGetDel, keys: "RW access delete", group: "hash")
        {
            Summary = "Returns the values of fields of a hash and removes the fields, deleting the key when it empties.",
            Since = "8.0.0", Complexity = "O(N), N = fields given", Args = FieldsArgs,
        },
        new("hgetex", -5, Write | Fast, HashCommands.HGetEx, keys: "RW access update -- RW and UPDATE because it changes the TTL", group: "hash")
        {
            Summary = "Returns the values of fields of a hash and optionally sets or removes their expiry.",
            Since = "8.0.0", Complexity = "O(N), N = fields given",
            Args = "key:key [expiration(EX=seconds:integer | PX=milliseconds:integer | EXAT=unix-time-seconds:unix-time | "
                + "PXAT=unix-time-milliseconds:unix-time | PERSIST)] FIELDS=fields{numfields:integer field...}",
        },
        new("hsetex", -6, Write | DenyOom | Fast, HashCommands.HSetEx, keys: "RW update", group: "hash")
        {
            Summary = "Stores fields of a hash, only if none or all exist when asked, and optionally sets or keeps their expiry.",
            Since = "8.0.0", Complexity = "O(N), N = fields set",
            Args = "key:key [condition(FNX | FXX)] [expiration(EX=seconds:integer | PX=milliseconds:integer | "
                + "EXAT=unix-time-seconds:unix-time | PXAT=unix-time-milliseconds:unix-time | KEEPTTL)] "
                + "FIELDS=fields{numfields:integer data{field value}...}",
        },
    ];

    private const string FieldsArgs = "key:key FIELDS=fields{numfields:integer field...}";

    private static string ExpireArgs(string time)
        => "key:key " + time + " [condition(NX | XX | GT | LT)] FIELDS=fields{numfields:integer field...}";
}
