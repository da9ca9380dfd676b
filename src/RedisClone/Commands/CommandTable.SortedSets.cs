using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The sortedsets family's rows (same columns as <see cref="CoreRows"/>).</summary>
    private static IEnumerable<CommandDef> SortedSetRows() =>
    [
    ];
}
