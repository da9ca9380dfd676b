using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The sort family's rows (same columns as <see cref="CoreRows"/>).</summary>
    /// <remarks>
    /// The key finders name the sorted key and STORE's destination, and ask for every shard's gate
    /// when a BY or GET pattern can name keys (see <see cref="SortCommands"/>).
    /// </remarks>
    private static IEnumerable<CommandDef> SortRows() =>
    [
        //  name      arity  flags                 first last step handler
        new("sort",      -2, Write | DenyOom,          1,  1, 1, SortCommands.Sort, keys: SortCommands.SortKeys),
        new("sort_ro",   -2, ReadOnly,                 1,  1, 1, SortCommands.SortRo, keys: SortCommands.SortRoKeys),
    ];
}
