namespace RedisClone.Storage;

/// <summary>Compares byte-string keys by content; looks them up by span without allocating.</summary>
internal sealed class ByteArrayComparer : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
{
    public static readonly ByteArrayComparer Instance = new();

    public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

    public int GetHashCode(byte[] obj) => KeyTable.HashOf(obj);

    public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);

    public int GetHashCode(ReadOnlySpan<byte> alternate) => KeyTable.HashOf(alternate);

    public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
}
