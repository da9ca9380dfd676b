using System.Buffers.Binary;
using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// Redis's HyperLogLog string layout, byte for byte, so values move between the two servers as is.
/// </summary>
/// <remarks>
/// <para>Header (16 bytes): "HYLL", the encoding (0 dense, 1 sparse), three unused bytes, and the
/// cached cardinality as 8 little-endian bytes whose top bit (bit 7 of byte 15) marks it stale.</para>
/// <para>Dense: 16384 registers of 6 bits packed from the least significant bit of each byte up
/// (12288 bytes). Sparse: a run-length list of opcodes over the registers — ZERO <c>00xxxxxx</c>
/// (1..64 zero registers), XZERO <c>01xxxxxx yyyyyyyy</c> (1..16384 zero registers), VAL
/// <c>1vvvvvxx</c> (1..4 registers holding 1..32). A sparse value becomes dense when an edit would
/// grow it past hll-sparse-max-bytes or a register needs more than 32.</para>
/// <para>An element is hashed with MurmurHash64A (seed 0xadc83b19): the low 14 bits pick the
/// register, and the register's candidate value is the position of the first set bit in the other
/// 50 (1-based; 51 when none is set).</para>
/// </remarks>
internal static class HyperLogLog
{
    public const int HeaderSize = 16;
    public const int P = 14;
    public const int Q = 64 - P;
    public const int Registers = 1 << P;
    public const int DenseSize = HeaderSize + Registers * 6 / 8;
    public const byte DenseEncoding = 0;
    public const byte SparseEncoding = 1;
    private const uint Seed = 0xadc83b19;
    private const int ValMaxValue = 32;
    private const int ValMaxLength = 4;
    private const int ZeroMaxLength = 64;
    private const int XZeroMaxLength = 16384;

    /// <summary>A new, empty HLL: sparse, one XZERO run over every register, cached count 0.</summary>
    public static byte[] CreateEmpty()
    {
        var bytes = new byte[HeaderSize + 2];
        "HYLL"u8.CopyTo(bytes);
        bytes[4] = SparseEncoding;
        bytes[HeaderSize] = 0x40 | ((XZeroMaxLength - 1) >> 8);
        bytes[HeaderSize + 1] = (XZeroMaxLength - 1) & 0xff;
        return bytes;
    }

    /// <summary>
    /// Redis's header check: long enough for the header, the magic, a known encoding, and a dense
    /// value of exactly the dense size. A sparse body is only checked as it is read.
    /// </summary>
    public static bool HasValidHeader(ReadOnlySpan<byte> hll)
        => hll.Length >= HeaderSize && hll.StartsWith("HYLL"u8) && hll[4] <= SparseEncoding
           && (hll[4] != DenseEncoding || hll.Length == DenseSize);

    public static bool IsDense(ReadOnlySpan<byte> hll) => hll[4] == DenseEncoding;

    /// <summary>The register an element falls in and the value it offers that register (1..51).</summary>
    public static int PatternLength(ReadOnlySpan<byte> element, out int index)
    {
        ulong hash = MurmurHash64A.Hash(element, Seed);
        index = (int)(hash & (Registers - 1));
        hash >>= P;
        hash |= 1UL << Q;
        return System.Numerics.BitOperations.TrailingZeroCount(hash) + 1;
    }

    // ---------------------------------------------------------------- cached cardinality

    public static bool TryCachedCount(ReadOnlySpan<byte> hll, out long count)
    {
        count = (long)BinaryPrimitives.ReadUInt64LittleEndian(hll.Slice(8, 8));
        return (hll[15] & 0x80) == 0;
    }

    public static void StoreCount(Span<byte> hll, long count)
        => BinaryPrimitives.WriteUInt64LittleEndian(hll.Slice(8, 8), (ulong)count);

    public static void InvalidateCount(Span<byte> hll) => hll[15] |= 0x80;

    // ---------------------------------------------------------------- dense registers

    /// <summary>Register <paramref name="index"/> of dense <paramref name="registers"/> (the bytes after the header).</summary>
    public static int GetDense(ReadOnlySpan<byte> registers, int index)
    {
        int bit = index * 6;
        int at = bit >> 3, shift = bit & 7;
        int low = registers[at] >> shift;
        int high = at + 1 < registers.Length ? registers[at + 1] << (8 - shift) : 0;
        return (low | high) & 63;
    }

    public static void SetDense(Span<byte> registers, int index, int value)
    {
        int bit = index * 6;
        int at = bit >> 3, shift = bit & 7;
        registers[at] = (byte)((registers[at] & ~(63 << shift)) | (value << shift));
        if (at + 1 < registers.Length)
            registers[at + 1] = (byte)((registers[at + 1] & ~(63 >> (8 - shift))) | (value >> (8 - shift)));
    }

    /// <summary>Raises a dense register to <paramref name="count"/>: true when it was lower.</summary>
    public static bool RaiseDense(Span<byte> registers, int index, int count)
    {
        if (GetDense(registers, index) >= count) return false;
        SetDense(registers, index, count);
        return true;
    }

    // ---------------------------------------------------------------- merging and counting

    /// <summary>
    /// Raises each of <paramref name="max"/>'s 16384 one-byte registers to the HLL's own: false for a
    /// sparse body that does not cover exactly the 16384 registers.
    /// </summary>
    public static bool TryMerge(ReadOnlySpan<byte> hll, Span<byte> max)
    {
        var body = hll[HeaderSize..];
        if (IsDense(hll))
        {
            for (int g = 0, b = 0; g < Registers; g += 4, b += 3)
            {
                int b0 = body[b], b1 = body[b + 1], b2 = body[b + 2];
                Raise(max, g, b0 & 63);
                Raise(max, g + 1, ((b0 >> 6) | (b1 << 2)) & 63);
                Raise(max, g + 2, ((b1 >> 4) | (b2 << 4)) & 63);
                Raise(max, g + 3, b2 >> 2);
            }
            return true;
        }
        var raise = new RaiseRuns(max);
        return TryWalkSparse(body, ref raise);

        static void Raise(Span<byte> max, int i, int value)
        {
            if (value > max[i]) max[i] = (byte)value;
        }
    }

    /// <summary>The estimate for a dense or sparse HLL; false for a sparse body that does not cover exactly 16384 registers.</summary>
    public static bool TryCount(ReadOnlySpan<byte> hll, out long count)
    {
        Span<int> histogram = stackalloc int[64];
        histogram.Clear();
        var body = hll[HeaderSize..];
        count = 0;
        if (IsDense(hll))
        {
            for (int b = 0; b < body.Length; b += 3)
            {
                int b0 = body[b], b1 = body[b + 1], b2 = body[b + 2];
                histogram[b0 & 63]++;
                histogram[((b0 >> 6) | (b1 << 2)) & 63]++;
                histogram[((b1 >> 4) | (b2 << 4)) & 63]++;
                histogram[b2 >> 2]++;
            }
        }
        else
        {
            int i = 0;
            for (int p = 0; p < body.Length;)
            {
                byte op = body[p];
                if ((op & 0xc0) == 0)
                {
                    int run = (op & 0x3f) + 1;
                    i += run;
                    histogram[0] += run;
                    p++;
                }
                else if ((op & 0x80) == 0)
                {
                    int run = XZeroLength(body, p);
                    i += run;
                    histogram[0] += run;
                    p += 2;
                }
                else
                {
                    int run = (op & 3) + 1;
                    i += run;
                    histogram[((op >> 2) & 0x1f) + 1] += run;
                    p++;
                }
            }
            if (i != Registers) return false;
        }
        count = Estimate(histogram);
        return true;
    }

    /// <summary>The estimate for 16384 one-byte registers (a merge of several HLLs).</summary>
    public static long CountRaw(ReadOnlySpan<byte> registers)
    {
        Span<int> histogram = stackalloc int[64];
        histogram.Clear();
        foreach (byte r in registers) histogram[r]++;
        return Estimate(histogram);
    }

    /// <summary>
    /// Otmar Ertl's improved estimator over the register histogram, as Redis 5+ computes it (same
    /// operations in the same order in doubles, rounded half away from zero), so counts match exactly.
    /// </summary>
    private static long Estimate(ReadOnlySpan<int> histogram)
    {
        const double m = Registers;
        const double alphaInf = 0.721347520444481703680; // 1 / (2 ln 2)
        double z = m * Tau((m - histogram[Q + 1]) / m);
        for (int j = Q; j >= 1; --j)
        {
            z += histogram[j];
            z *= 0.5;
        }
        z += m * Sigma(histogram[0] / m);
        return (long)Math.Round(alphaInf * m * m / z, MidpointRounding.AwayFromZero);
    }

    private static double Sigma(double x)
    {
        if (x == 1.0) return double.PositiveInfinity;
        double y = 1, z = x, previous;
        do
        {
            x *= x;
            previous = z;
            z += x * y;
            y += y;
        } while (previous != z);
        return z;
    }

    private static double Tau(double x)
    {
        if (x == 0.0 || x == 1.0) return 0.0;
        double y = 1.0, z = 1 - x, previous;
        do
        {
            x = Math.Sqrt(x);
            previous = z;
            y *= 0.5;
            z -= Math.Pow(1 - x, 2) * y;
        } while (previous != z);
        return z / 3;
    }

    /// <summary>
    /// A sparse body as text, one token per opcode: <c>z:len</c> (ZERO), <c>Z:len</c> (XZERO),
    /// <c>v:value,len</c> (VAL), separated by spaces (PFDEBUG DECODE's format).
    /// </summary>
    public static string DecodeSparse(ReadOnlySpan<byte> hll)
    {
        var text = new System.Text.StringBuilder();
        var body = hll[HeaderSize..];
        for (int p = 0; p < body.Length;)
        {
            if (text.Length > 0) text.Append(' ');
            byte op = body[p];
            if ((op & 0xc0) == 0)
            {
                text.Append("z:").Append((op & 0x3f) + 1);
                p++;
            }
            else if ((op & 0x80) == 0)
            {
                text.Append("Z:").Append(XZeroLength(body, p));
                p += 2;
            }
            else
            {
                text.Append("v:").Append(((op >> 2) & 0x1f) + 1).Append(',').Append((op & 3) + 1);
                p++;
            }
        }
        return text.ToString();
    }

    /// <summary>An XZERO run's length; a truncated opcode at the very end reads its second byte as 0, as Redis's terminator.</summary>
    private static int XZeroLength(ReadOnlySpan<byte> body, int p)
        => (((body[p] & 0x3f) << 8) | (p + 1 < body.Length ? body[p + 1] : 0)) + 1;

    /// <summary>A dense copy of a sparse HLL (header kept, encoding changed); null when the body does not cover exactly 16384 registers.</summary>
    public static byte[]? ToDense(ReadOnlySpan<byte> sparse)
    {
        var dense = new byte[DenseSize];
        sparse[..HeaderSize].CopyTo(dense);
        dense[4] = DenseEncoding;
        var registers = dense.AsSpan(HeaderSize);
        var set = new SetRuns(dense.AsSpan(HeaderSize));
        return TryWalkSparse(sparse[HeaderSize..], ref set) ? dense : null;
    }

    /// <summary>What a sparse walk does with each VAL run: registers start..start+count-1 hold value.</summary>
    private interface IValRuns
    {
        void Run(int start, int count, int value);
    }

    private readonly ref struct RaiseRuns(Span<byte> max) : IValRuns
    {
        private readonly Span<byte> _max = max;

        public void Run(int start, int count, int value)
        {
            for (int i = start; i < start + count; i++)
                if (value > _max[i]) _max[i] = (byte)value;
        }
    }

    private readonly ref struct SetRuns(Span<byte> registers) : IValRuns
    {
        private readonly Span<byte> _registers = registers;

        public void Run(int start, int count, int value)
        {
            for (int i = start; i < start + count; i++) SetDense(_registers, i, value);
        }
    }

    /// <summary>
    /// Walks a sparse body's ZERO, XZERO and VAL opcodes, handing each VAL run to <paramref name="runs"/>:
    /// false when the body does not cover exactly the 16384 registers.
    /// </summary>
    private static bool TryWalkSparse<T>(ReadOnlySpan<byte> body, ref T runs) where T : struct, IValRuns, allows ref struct
    {
        int i = 0;
        for (int p = 0; p < body.Length;)
        {
            byte op = body[p];
            if ((op & 0xc0) == 0)
            {
                i += (op & 0x3f) + 1;
                p++;
            }
            else if ((op & 0x80) == 0)
            {
                i += XZeroLength(body, p);
                p += 2;
            }
            else
            {
                int run = (op & 3) + 1, value = ((op >> 2) & 0x1f) + 1;
                // A VAL run past the last register is corrupt even when the registers before it add
                // up: 7.2.6 stopped there and accepted the value; the CVE-2025-32023 fix (7.2.10,
                // and Debian's 7.0.15) refuses it, as here.
                if (run + i > Registers) return false;
                runs.Run(i, run, value);
                i += run;
                p++;
            }
        }
        return i == Registers;
    }

    // ---------------------------------------------------------------- editing

    /// <summary>
    /// A working copy of an HLL being written (PFADD, PFMERGE): sparse edits splice opcodes exactly
    /// as Redis's hllSparseSet does (same splits, same merges of equal neighbouring VAL runs, same
    /// promotion point), so the bytes come out identical.
    /// </summary>
    internal sealed class Editor
    {
        private byte[] _bytes;
        private int _length;
        private readonly long _sparseMaxBytes;

        public Editor(ReadOnlySpan<byte> hll, long sparseMaxBytes)
        {
            _bytes = new byte[hll.Length + 64];
            hll.CopyTo(_bytes);
            _length = hll.Length;
            _sparseMaxBytes = sparseMaxBytes;
        }

        public ReadOnlySpan<byte> Value => _bytes.AsSpan(0, _length);

        public Span<byte> Writable => _bytes.AsSpan(0, _length);

        public bool IsDense => _bytes[4] == DenseEncoding;

        /// <summary>Makes the value dense: false for a corrupt sparse body.</summary>
        public bool Densify()
        {
            if (IsDense) return true;
            var dense = ToDense(Value);
            if (dense == null) return false;
            _bytes = dense;
            _length = dense.Length;
            return true;
        }

        /// <summary>Raises register <paramref name="index"/> to <paramref name="count"/>: 1 when it changed, 0 when not, -1 for a corrupt value.</summary>
        public int Set(int index, int count)
        {
            if (IsDense) return RaiseDense(_bytes.AsSpan(HeaderSize, Registers * 6 / 8), index, count) ? 1 : 0;
            if (count > ValMaxValue) return Promote(index, count);

            int end = _length;
            int p = HeaderSize, first = 0, prev = -1, span = 0;
            while (p < end)
            {
                byte op = _bytes[p];
                int opLength = 1;
                if ((op & 0xc0) == 0) span = (op & 0x3f) + 1;
                else if ((op & 0x80) != 0) span = (op & 3) + 1;
                else
                {
                    span = (((op & 0x3f) << 8) | (p + 1 < end ? _bytes[p + 1] : 0)) + 1;
                    opLength = 2;
                }
                if (index <= first + span - 1) break;
                prev = p;
                p += opLength;
                first += span;
            }
            if (span == 0 || p >= end) return -1;

            byte at = _bytes[p];
            bool isXZero = (at & 0xc0) == 0x40;
            int next = isXZero ? p + 2 : p + 1;
            if (next >= end) next = -1;
            bool isZero = (at & 0xc0) == 0, isVal = (at & 0x80) != 0;
            int runLength = isZero ? (at & 0x3f) + 1 : isVal ? (at & 3) + 1 : span;

            if (isVal)
            {
                if (((at >> 2) & 0x1f) + 1 >= count) return 0;
                if (runLength == 1)
                {
                    _bytes[p] = Val(count, 1);
                    return Updated(prev, end);
                }
            }
            if (isZero && runLength == 1)
            {
                _bytes[p] = Val(count, 1);
                return Updated(prev, end);
            }

            // Split the run into up to three: the registers before, the one set, the ones after.
            Span<byte> sequence = stackalloc byte[5];
            int n = 0;
            int last = first + span - 1;
            if (isZero || isXZero)
            {
                if (index != first) n += PutZero(sequence[n..], index - first);
                sequence[n++] = Val(count, 1);
                if (index != last) n += PutZero(sequence[n..], last - index);
            }
            else
            {
                int current = ((at >> 2) & 0x1f) + 1;
                if (index != first) sequence[n++] = Val(current, index - first);
                sequence[n++] = Val(count, 1);
                if (index != last) sequence[n++] = Val(current, last - index);
            }
            int oldLength = isXZero ? 2 : 1;
            int delta = n - oldLength;
            if (delta > 0 && _length + delta > _sparseMaxBytes) return Promote(index, count);
            EnsureCapacity(_length + Math.Max(delta, 0) + 8);
            if (delta != 0 && next >= 0) Array.Copy(_bytes, next, _bytes, next + delta, end - next);
            _length += delta;
            sequence[..n].CopyTo(_bytes.AsSpan(p));
            end += delta;
            return Updated(prev, end);
        }

        /// <summary>Merges equal neighbouring VAL runs from the opcode before the edit on (up to five opcodes), as Redis.</summary>
        private int Updated(int prev, int end)
        {
            int p = prev >= 0 ? prev : HeaderSize;
            int scan = 5;
            while (p < end && scan-- > 0)
            {
                byte op = _bytes[p];
                if ((op & 0xc0) == 0x40)
                {
                    p += 2;
                    continue;
                }
                if ((op & 0xc0) == 0)
                {
                    p++;
                    continue;
                }
                if (p + 1 < end && (_bytes[p + 1] & 0x80) != 0)
                {
                    int v1 = ((op >> 2) & 0x1f) + 1, v2 = ((_bytes[p + 1] >> 2) & 0x1f) + 1;
                    if (v1 == v2)
                    {
                        int length = (op & 3) + 1 + (_bytes[p + 1] & 3) + 1;
                        if (length <= ValMaxLength)
                        {
                            _bytes[p + 1] = Val(v1, length);
                            Array.Copy(_bytes, p + 1, _bytes, p, end - p - 1);
                            _length--;
                            end--;
                            continue;
                        }
                    }
                }
                p++;
            }
            InvalidateCount(_bytes);
            return 1;
        }

        private int Promote(int index, int count)
        {
            if (!Densify()) return -1;
            RaiseDense(_bytes.AsSpan(HeaderSize), index, count);
            return 1;
        }

        private void EnsureCapacity(int length)
        {
            if (length > _bytes.Length) Array.Resize(ref _bytes, Math.Max(length, _bytes.Length * 2));
        }

        private static byte Val(int value, int length) => (byte)(0x80 | ((value - 1) << 2) | (length - 1));

        private static int PutZero(Span<byte> at, int length)
        {
            if (length > ZeroMaxLength)
            {
                at[0] = (byte)(0x40 | ((length - 1) >> 8));
                at[1] = (byte)((length - 1) & 0xff);
                return 2;
            }
            at[0] = (byte)(length - 1);
            return 1;
        }
    }
}
