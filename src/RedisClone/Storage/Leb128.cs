using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// The length prefixes of the packed collections (small hashes, sets and sorted sets) and of the
/// records in big ones' arenas: unsigned LEB128, seven bits a byte from the lowest, every byte but
/// the last with its high bit set, so a length under 128 takes one byte.
/// </summary>
internal static class Leb128
{
    /// <summary>The bytes <paramref name="value"/> takes (1 to 5; a negative one is read as unsigned).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Size(int value)
    {
        uint v = (uint)value;
        return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
    }

    /// <summary>The bytes a length that may not fit an int takes, for size estimates (5 from 2^28 on).</summary>
    public static int Size(long value) => value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

    /// <summary>Writes <paramref name="value"/> at <paramref name="at"/>, which moves past it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write(Span<byte> dest, ref int at, int value)
    {
        uint v = (uint)value;
        while (v >= 0x80)
        {
            dest[at++] = (byte)(v | 0x80);
            v >>= 7;
        }
        dest[at++] = (byte)v;
    }

    /// <summary>Reads the value at <paramref name="at"/>, which moves past it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Read(byte[] source, ref int at)
    {
        int result = 0, shift = 0;
        while (true)
        {
            byte b = source[at++];
            result |= (b & 0x7F) << shift;
            if (b < 0x80) return result;
            shift += 7;
        }
    }
}
