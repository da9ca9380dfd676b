namespace RedisClone.Cluster.Bus;

/// <summary>
/// The 16384 hash slots as the bus carries them (a header's <c>myslots</c>, UPDATE's slots): 2048
/// bytes, slot <c>s</c> at bit <c>s % 8</c> (least significant first) of byte <c>s / 8</c>, as
/// Redis's bitmapTestBit reads it.
/// </summary>
internal sealed class SlotBitmap
{
    private readonly byte[] _bits = new byte[BusLayout.SlotBytes];

    public SlotBitmap()
    {
    }

    /// <summary>A copy of the 2048 bytes at the start of <paramref name="bytes"/>.</summary>
    public SlotBitmap(ReadOnlySpan<byte> bytes) => CopyFrom(bytes);

    public ReadOnlySpan<byte> Bytes => _bits;

    public bool Get(int slot) => (_bits[slot >> 3] & (1 << (slot & 7))) != 0;

    public void Set(int slot) => _bits[slot >> 3] |= (byte)(1 << (slot & 7));

    public void Clear(int slot) => _bits[slot >> 3] &= (byte)~(1 << (slot & 7));

    /// <summary>Sets slots <paramref name="first"/> to <paramref name="last"/>, both included.</summary>
    public void SetRange(int first, int last)
    {
        for (int slot = first; slot <= last; slot++) Set(slot);
    }

    public void ClearAll() => Array.Clear(_bits);

    public void CopyFrom(ReadOnlySpan<byte> bytes) => bytes[..BusLayout.SlotBytes].CopyTo(_bits);

    /// <summary>The number of slots set.</summary>
    public int Count()
    {
        int n = 0;
        for (int i = 0; i < _bits.Length; i += 8)
            n += System.Numerics.BitOperations.PopCount(System.Buffers.Binary.BinaryPrimitives.ReadUInt64LittleEndian(_bits.AsSpan(i)));
        return n;
    }

    /// <summary>Whether <paramref name="bytes"/> (2048 bytes) holds the same slots.</summary>
    public bool SameAs(ReadOnlySpan<byte> bytes) => bytes.Length >= BusLayout.SlotBytes && _bits.AsSpan().SequenceEqual(bytes[..BusLayout.SlotBytes]);

    /// <summary>Whether slot <paramref name="slot"/> is set in a 2048-byte bitmap read from the wire.</summary>
    public static bool Get(ReadOnlySpan<byte> bitmap, int slot) => (bitmap[slot >> 3] & (1 << (slot & 7))) != 0;
}
