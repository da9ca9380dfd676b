namespace RedisClone.Storage;

/// <summary>The field-value pairs of an entry being added to a <see cref="RedisStream"/>, read where they lie (the command's arguments).</summary>
internal interface IStreamFields
{
    int PairCount { get; }
    ReadOnlySpan<byte> Field(int index);
    ReadOnlySpan<byte> Value(int index);
}
