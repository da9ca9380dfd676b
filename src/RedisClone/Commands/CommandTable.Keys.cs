using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The generic keyspace commands (handlers in <see cref="KeyCommands"/>), with the database-wide ones.</summary>
    private static IEnumerable<CommandDef> KeyRows() =>
    [
        new("del", -2, Write, KeyCommands.Del, keys: "RM delete r=-1,1,0")
        {
            Summary = "Deletes keys; returns how many existed.",
            Since = "1.0.0", Complexity = "O(N) in keys, plus the size of each deleted value", Args = "key:key...",
            Tips = "request_policy:multi_shard response_policy:agg_sum",
        },
        new("unlink", -2, Write | Fast, KeyCommands.Del, keys: "RM delete r=-1,1,0")
        {
            Summary = "Deletes keys, freeing large values in the background; returns how many existed.",
            Since = "4.0.0", Complexity = "O(1) per key", Args = "key:key...",
            Tips = "request_policy:multi_shard response_policy:agg_sum",
        },
        new("exists", -2, ReadOnly | Fast, KeyCommands.Exists, keys: "RO r=-1,1,0")
        {
            Summary = "Counts how many of the given keys exist (a key given twice counts twice).",
            Since = "1.0.0", Complexity = "O(N), N = keys", Args = "key:key...",
            Tips = "request_policy:multi_shard response_policy:agg_sum", History = "3.0.3: Several keys accepted",
        },
        new("touch", -2, ReadOnly | Fast, KeyCommands.Touch, keys: "RO r=-1,1,0")
        {
            Summary = "Marks keys as used; returns how many exist.",
            Since = "3.2.1", Complexity = "O(N), N = keys", Args = "key:key...",
            Tips = "request_policy:multi_shard response_policy:agg_sum",
        },
        new("type", 2, ReadOnly | Fast, KeyCommands.Type, keys: "RO")
        {
            Summary = "Returns the type of the value stored at a key, or none.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("rename", 3, Write, KeyCommands.Rename, keys: "RW access delete; OW update")
        {
            Summary = "Renames a key, replacing any key of the new name.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key newkey:key",
        },
        new("renamenx", 3, Write | Fast, KeyCommands.RenameNx, keys: "RW access delete; OW insert")
        {
            Summary = "Renames a key only when the new name is free.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key newkey:key",
            History = "3.2.0: Same source and destination no longer an error",
        },
        new("copy", -3, Write | DenyOom, KeyCommands.Copy, keys: "RO access; OW update")
        {
            Summary = "Copies the value of a key to another key, possibly in another database.",
            Since = "6.2.0", Complexity = "O(N), N = elements copied",
            Args = "source:key destination:key [DB=destination-db:integer] [REPLACE]",
        },
        new("dump", 2, ReadOnly, DumpCommands.Dump, keys: "RO access")
        {
            Summary = "Returns a key's value serialized as Redis does (RDB value, version, CRC64), for RESTORE.",
            Since = "2.6.0", Complexity = "O(1) to find the key, O(N*M) to serialize N elements of M bytes",
            Args = "key:key", Tips = "nondeterministic_output", Acl = "keyspace",
        },
        new("restore", -4, Write | DenyOom, DumpCommands.Restore, keys: "OW update")
        {
            Summary = "Creates a key from a value serialized by DUMP, with a TTL, optionally replacing it.",
            Since = "2.6.0", Complexity = "O(N*M) to rebuild N elements of M bytes (O(N*M*log N) for sorted sets)",
            Args = "key:key ttl:integer serialized-value:string [REPLACE@3.0.0] [ABSTTL@5.0.0] [IDLETIME=seconds:integer@5.0.0] [FREQ=frequency:integer@5.0.0]",
            History = "3.0.0: REPLACE; 5.0.0: ABSTTL; 5.0.0: IDLETIME and FREQ", Acl = "keyspace dangerous",
        },
        // What MIGRATE sends on a cluster node: RESTORE, served in a slot being imported without ASKING.
        new("restore-asking", -4, Write | DenyOom | Asking, DumpCommands.Restore, keys: "OW update", group: "server")
        {
            Summary = "RESTORE as a cluster node's MIGRATE sends it: served in a slot being imported without ASKING.",
            Since = "3.0.0", Complexity = "As RESTORE.",
            Args = "key:key ttl:integer serialized-value:string [REPLACE@3.0.0] [ABSTTL@5.0.0] [IDLETIME=seconds:integer@5.0.0] [FREQ=frequency:integer@5.0.0]",
            History = "3.0.0: REPLACE; 5.0.0: ABSTTL; 5.0.0: IDLETIME and FREQ", Acl = "keyspace dangerous", SysCmd = true,
        },
        new("migrate", -6, Write, MigrateCommands.Migrate,
            keys: "RW access delete i=3; RW access delete incomplete kw=KEYS,-2 r=-1,1,0", keyFinder: MigrateCommands.MigrateKeys)
        {
            Summary = "Moves keys to another Redis instance (DUMP here, RESTORE there, then DEL here unless COPY).",
            Since = "2.6.0",
            Complexity = "A DUMP and DEL here and a RESTORE on the target per key (see those commands), plus an O(N) transfer.",
            Args = "host:string port:integer key-selector(key:key#0 | empty-string:'\"\"') destination-db:integer timeout:integer "
                + "[COPY@3.0.0] [REPLACE@3.0.0] [authentication(AUTH=auth:string@4.0.7 | AUTH2=auth2{username:string password:string}@6.0.0)] "
                + "[KEYS=keys:key#1...@3.0.6]",
            Tips = "nondeterministic_output", Acl = "keyspace dangerous",
            History = "3.0.0: Added the `COPY` and `REPLACE` options.; 3.0.6: Added the `KEYS` option.; 4.0.7: Added the `AUTH` option.; 6.0.0: Added the `AUTH2` option.",
        },
        new("move", 3, Write | Fast, KeyCommands.Move, keys: "RW access update")
        {
            Summary = "Moves a key to another database.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key db:integer",
        },
        new("keys", 2, ReadOnly, KeyCommands.Keys, routing: AllShards)
        {
            Summary = "Lists every key that matches a glob pattern.",
            Since = "1.0.0", Complexity = "O(N), N = keys in the database", Args = "pattern:pattern",
            Tips = "request_policy:all_shards nondeterministic_output_order", Acl = "keyspace dangerous",
        },
        new("scan", -2, ReadOnly, KeyCommands.Scan, routing: ScanCursor)
        {
            Summary = "Walks the keyspace a batch at a time with a cursor.",
            Since = "2.8.0", Complexity = "O(1) per call, O(N) for a whole walk",
            Args = "cursor:integer [MATCH=pattern:pattern] [COUNT=count:integer] [TYPE=type@6.0.0]",
            Tips = "nondeterministic_output request_policy:special", History = "6.0.0: TYPE option",
        },
        new("randomkey", 1, ReadOnly, KeyCommands.RandomKey, routing: AllShards)
        {
            Summary = "Returns a random key of the database.",
            Since = "1.0.0", Complexity = "O(1)", Tips = "request_policy:all_shards nondeterministic_output",
        },
        new("dbsize", 1, ReadOnly | Fast, KeyCommands.DbSize, group: "server", routing: AllShards)
        {
            Summary = "Returns the number of keys in the selected database.",
            Since = "1.0.0", Complexity = "O(1)", Tips = "request_policy:all_shards response_policy:agg_sum", Acl = "keyspace",
        },
        new("flushdb", -1, Write, KeyCommands.FlushDb, group: "server", routing: AllShards)
        {
            Summary = "Deletes every key of the selected database.",
            Since = "1.0.0", Complexity = "O(N), N = keys in the database", Args = "[async(ASYNC@4.0.0 | SYNC@6.2.0)]",
            Tips = "request_policy:all_shards response_policy:all_succeeded", Acl = "keyspace dangerous",
            History = "4.0.0: ASYNC option; 6.2.0: SYNC option",
        },
        new("flushall", -1, Write, KeyCommands.FlushAll, group: "server", routing: AllShards)
        {
            Summary = "Deletes every key of every database.",
            Since = "1.0.0", Complexity = "O(N), N = keys in all databases", Args = "[async(ASYNC@4.0.0 | SYNC@6.2.0)]",
            Tips = "request_policy:all_shards response_policy:all_succeeded", Acl = "keyspace dangerous",
            History = "4.0.0: ASYNC option; 6.2.0: SYNC option",
        },
        new("swapdb", 3, Write | Fast, KeyCommands.SwapDb, group: "server", routing: AllShards)
        {
            Summary = "Exchanges the contents of two databases.",
            Since = "4.0.0", Complexity = "O(N), N = clients watching or blocked on keys", Args = "index1:integer index2:integer",
            Acl = "keyspace dangerous",
        },
        new("expire", -3, Write | Fast, KeyCommands.Expire, keys: "RW update")
        {
            Summary = "Sets a key's time to live in seconds.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key seconds:integer [condition(NX | XX | GT | LT)@7.0.0]",
            History = "7.0.0: NX, XX, GT and LT options",
        },
        new("pexpire", -3, Write | Fast, KeyCommands.PExpire, keys: "RW update")
        {
            Summary = "Sets a key's time to live in milliseconds.",
            Since = "2.6.0", Complexity = "O(1)", Args = "key:key milliseconds:integer [condition(NX | XX | GT | LT)@7.0.0]",
            History = "7.0.0: NX, XX, GT and LT options",
        },
        new("expireat", -3, Write | Fast, KeyCommands.ExpireAt, keys: "RW update")
        {
            Summary = "Sets the unix time in seconds at which a key expires.",
            Since = "1.2.0", Complexity = "O(1)", Args = "key:key unix-time-seconds:unix-time [condition(NX | XX | GT | LT)@7.0.0]",
            History = "7.0.0: NX, XX, GT and LT options",
        },
        new("pexpireat", -3, Write | Fast, KeyCommands.PExpireAt, keys: "RW update")
        {
            Summary = "Sets the unix time in milliseconds at which a key expires.",
            Since = "2.6.0", Complexity = "O(1)",
            Args = "key:key unix-time-milliseconds:unix-time [condition(NX | XX | GT | LT)@7.0.0]",
            History = "7.0.0: NX, XX, GT and LT options",
        },
        new("ttl", 2, ReadOnly | Fast, KeyCommands.Ttl, keys: "RO access")
        {
            Summary = "Returns a key's remaining time to live in seconds.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key", Tips = "nondeterministic_output",
            History = "2.8.0: -2 for a missing key",
        },
        new("pttl", 2, ReadOnly | Fast, KeyCommands.PTtl, keys: "RO access")
        {
            Summary = "Returns a key's remaining time to live in milliseconds.",
            Since = "2.6.0", Complexity = "O(1)", Args = "key:key", Tips = "nondeterministic_output",
            History = "2.8.0: -2 for a missing key",
        },
        new("expiretime", 2, ReadOnly | Fast, KeyCommands.ExpireTime, keys: "RO access")
        {
            Summary = "Returns the unix time in seconds at which a key expires.",
            Since = "7.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("pexpiretime", 2, ReadOnly | Fast, KeyCommands.PExpireTime, keys: "RO access")
        {
            Summary = "Returns the unix time in milliseconds at which a key expires.",
            Since = "7.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("persist", 2, Write | Fast, KeyCommands.Persist, keys: "RW update")
        {
            Summary = "Removes a key's expiry.",
            Since = "2.2.0", Complexity = "O(1)", Args = "key:key",
        },
        new("object", -2, None, ServerCommands.Help)
        {
            Summary = "Subcommands that inspect how values are stored.",
            Since = "2.2.3", Complexity = "See each subcommand.",
            Subcommands =
            [
                new("encoding", 3, ReadOnly, KeyCommands.ObjectEncoding, keys: "RO i=2")
                {
                    Summary = "Returns the internal encoding of a key's value.",
                    Since = "2.2.3", Complexity = "O(1)", Args = "key:key", Tips = "nondeterministic_output",
                },
                new("freq", 3, ReadOnly, KeyCommands.ObjectFreq, keys: "RO i=2")
                {
                    Summary = "Returns the LFU access counter of a key.",
                    Since = "4.0.0", Complexity = "O(1)", Args = "key:key", Tips = "nondeterministic_output",
                },
                new("idletime", 3, ReadOnly, KeyCommands.ObjectIdleTime, keys: "RO i=2")
                {
                    Summary = "Returns the seconds since a key was last used.",
                    Since = "2.2.3", Complexity = "O(1)", Args = "key:key", Tips = "nondeterministic_output",
                },
                new("refcount", 3, ReadOnly, KeyCommands.ObjectRefCount, keys: "RO i=2")
                {
                    Summary = "Returns the reference count of a key's value.",
                    Since = "2.2.3", Complexity = "O(1)", Args = "key:key", Tips = "nondeterministic_output",
                },
                new("help", 2, LS, KeyCommands.ObjectHelp)
                {
                    Summary = "Lists the OBJECT subcommands.",
                    Since = "6.2.0", Complexity = "O(1)",
                },
            ],
        },
    ];
}
