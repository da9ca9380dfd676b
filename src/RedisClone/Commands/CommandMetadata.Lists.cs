namespace RedisClone.Commands;

internal static partial class CommandMetadata
{
    /// <summary>The lists family's metadata entries (same syntax as CoreEntries).</summary>
    private static MetadataEntry[] ListEntries() =>
    [
    ];
}
