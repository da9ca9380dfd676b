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
            Args = "key:key cursor:integer [MATCH=pattern:pattern] [COUNT=count:integer]", Tips = "nondeterministic_output",
        },
    ];
}
