using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The HyperLogLog family (handlers in <see cref="HyperLogLogCommands"/>): strings in Redis's HLL layout.</summary>
    private static IEnumerable<CommandDef> HyperLogLogRows() =>
    [
        new("pfadd", -2, Write | DenyOom | Fast, HyperLogLogCommands.PfAdd, keys: "RW insert", group: "hyperloglog")
        {
            Summary = "Adds elements to the HyperLogLog at a key, creating it when missing; 1 when its estimate may have changed.",
            Since = "2.8.9", Complexity = "O(1) to add every element.", Args = "key:key [element:string...]",
        },
        new("pfcount", -2, ReadOnly | MayReplicate, HyperLogLogCommands.PfCount,
            keys: "RW access r=-1,1,0 -- RW because it may change the internal representation of the key, and propagate to replicas",
            group: "hyperloglog")
        {
            Summary = "Estimates how many distinct elements were added to a HyperLogLog, or to the union of several.",
            Since = "2.8.9",
            Complexity = "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
            Args = "key:key...",
        },
        new("pfmerge", -2, Write | DenyOom, HyperLogLogCommands.PfMerge, keys: "RW access insert; RO access r=-1,1,0", group: "hyperloglog")
        {
            Summary = "Stores the union of HyperLogLogs (the destination's own content included) at the destination key.",
            Since = "2.8.9", Complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
            Args = "destkey:key [sourcekey:key...]",
        },
        new("pfdebug", 3, Write | DenyOom | Admin, HyperLogLogCommands.PfDebug, keys: "RW access i=2", group: "hyperloglog")
        {
            Summary = "Shows the inside of a HyperLogLog value (registers, opcodes, encoding) or makes it dense; for debugging.",
            Since = "2.8.9", Complexity = "N/A", Args = "subcommand:string key:key", SysCmd = true,
        },
        new("pfselftest", 1, Admin, HyperLogLogCommands.PfSelfTest, group: "hyperloglog")
        {
            Summary = "Runs the HyperLogLog implementation's own checks; for testing.",
            Since = "2.8.9", Complexity = "N/A", SysCmd = true,
        },
    ];
}
