using System.Buffers;

namespace RedisClone.Common;

/// <summary>
/// Byte blocks for connection buffers: small ones from <see cref="ArrayPool{T}.Shared"/>, big ones
/// (over <see cref="MaxPooled"/>) straight from the GC and never pooled.
/// </summary>
/// <remarks>
/// The shared pool keeps arrays up to 1 GB, several per size per core, and trims them only on a
/// gen2 collection under memory pressure or after a minute unused. A burst of 10 MB replies to 100
/// clients left hundreds of megabytes of 16 MB blocks parked there for good; Redis frees such
/// reply blocks as soon as they are written. Blocks above the cap are rare (a reply or an argument
/// of more than a megabyte) and cost one large-object allocation each, which the GC gives back.
/// </remarks>
internal static class BufferPool
{
    /// <summary>The biggest block the pool keeps.</summary>
    public const int MaxPooled = 1 << 20;

    /// <summary>A block of at least <paramref name="minimum"/> bytes; contents are undefined.</summary>
    public static byte[] Rent(int minimum)
        => minimum <= MaxPooled ? ArrayPool<byte>.Shared.Rent(minimum) : GC.AllocateUninitializedArray<byte>(minimum);

    /// <summary>Gives a block back: to the pool when it is small enough to keep, to the GC otherwise.</summary>
    public static void Return(byte[] block)
    {
        if (block.Length <= MaxPooled) ArrayPool<byte>.Shared.Return(block);
        else ReleasedMemory.Add(block.Length);
    }
}
