namespace RedisClone.Commands;

internal static partial class CommandMetadata
{
    /// <summary>The sort family's metadata entries (same syntax as CoreEntries).</summary>
    private static MetadataEntry[] SortEntries() =>
    [
    ];
}
