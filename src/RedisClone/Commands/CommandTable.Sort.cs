using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The sort family's rows (same columns as <see cref="CoreRows"/>).</summary>
    private static IEnumerable<CommandDef> SortRows() =>
    [
    ];
}
