namespace RedisClone.Common;

/// <summary>
/// LZF, the compression Redis applies to strings in RDB files and DUMP payloads. Compression makes
/// the same bytes as Redis's lzf_compress (liblzf 3.6 built with HLOG 16 and VERY_FAST), so a
/// payload written here is byte-identical to redis-server's.
/// </summary>
/// <remarks>
/// The format is a sequence of runs: a control byte below 32 is a literal run of control+1 bytes
/// that follow; otherwise its top 3 bits are a length L (7 means "add the next byte") and its low
/// 5 bits with the next byte an offset: copy L+2 bytes from that far back (+1) in the output.
/// Compression hashes the next three bytes to find an earlier occurrence within 8 KB.
/// Neither direction allocates: the compressor's hash table is one per thread, stamped with a
/// running base so it need not be cleared between calls.
/// </remarks>
internal static class Lzf
{
    private const int HashLog = 16;
    private const int HashSize = 1 << HashLog;
    private const int MaxLiteral = 1 << 5;
    private const int MaxOffset = 1 << 13;
    private const int MaxReference = (1 << 8) + (1 << 3);

    // Entry = base + position + 1, valid only when above this call's base (older calls wrote less).
    [ThreadStatic] private static int[]? t_table;
    [ThreadStatic] private static int t_base;

    /// <summary>
    /// Compresses <paramref name="input"/> into <paramref name="output"/>; the compressed length, or 0
    /// when it does not fit (Redis then stores the string as is).
    /// </summary>
    public static int Compress(ReadOnlySpan<byte> input, Span<byte> output)
    {
        int n = input.Length, outEnd = output.Length;
        if (n == 0 || outEnd == 0) return 0;
        var table = t_table ??= new int[HashSize];
        int tableBase = t_base;
        if (tableBase > int.MaxValue - n - 2)
        {
            Array.Clear(table);
            tableBase = 0;
        }
        t_base = tableBase + n + 1;

        int ip = 0, op = 1, lit = 0; // op: a literal run is open, its control byte reserved at op - 1
        uint hval = n >= 2 ? (uint)((input[0] << 8) | input[1]) : 0;
        while (ip < n - 2)
        {
            hval = (hval << 8) | input[ip + 2];
            int slot = Index(hval);
            int entry = table[slot];
            table[slot] = tableBase + ip + 1;
            int reference = entry > tableBase ? entry - tableBase - 1 : -1;
            int off = ip - reference - 1;
            // As lzf_compress: position 0 is never a reference ("ref > in_data").
            if (reference > 0 && off < MaxOffset
                && input[reference + 2] == input[ip + 2] && input[reference] == input[ip] && input[reference + 1] == input[ip + 1])
            {
                int len = 2;
                int maxLen = Math.Min(n - ip - len, MaxReference);
                if (op + 3 + 1 >= outEnd && op - (lit == 0 ? 1 : 0) + 3 + 1 >= outEnd) return 0;
                output[op - lit - 1] = (byte)(lit - 1); // close the literal run (or drop it when empty)
                if (lit == 0) op--;

                // liblzf compares 16 bytes unrolled before its loop when more than 16 may match: it can
                // run two bytes past maxLen (still inside the input), and the output shows it.
                bool stopped = false;
                if (maxLen > 16)
                {
                    for (int k = 0; k < 16; k++)
                    {
                        len++;
                        if (input[reference + len] != input[ip + len])
                        {
                            stopped = true;
                            break;
                        }
                    }
                }
                if (!stopped)
                {
                    do len++;
                    while (len < maxLen && input[reference + len] == input[ip + len]);
                }

                len -= 2; // bytes copied are len + 2
                ip++;
                if (len < 7)
                {
                    output[op++] = (byte)((off >> 8) + (len << 5));
                }
                else
                {
                    output[op++] = (byte)((off >> 8) + (7 << 5));
                    output[op++] = (byte)(len - 7);
                }
                output[op++] = (byte)off;
                lit = 0;
                op++;
                ip += len + 1;
                if (ip >= n - 2) break;

                // Hash the last two positions of the match (VERY_FAST), as liblzf does.
                ip -= 2;
                hval = (uint)((input[ip] << 8) | input[ip + 1]);
                hval = (hval << 8) | input[ip + 2];
                table[Index(hval)] = tableBase + ip + 1;
                ip++;
                hval = (hval << 8) | input[ip + 2];
                table[Index(hval)] = tableBase + ip + 1;
                ip++;
            }
            else
            {
                if (op >= outEnd) return 0;
                lit++;
                output[op++] = input[ip++];
                if (lit == MaxLiteral)
                {
                    output[op - lit - 1] = (byte)(lit - 1);
                    lit = 0;
                    op++;
                }
            }
        }

        if (op + 3 > outEnd) return 0;
        while (ip < n)
        {
            lit++;
            output[op++] = input[ip++];
            if (lit == MaxLiteral)
            {
                output[op - lit - 1] = (byte)(lit - 1);
                lit = 0;
                op++;
            }
        }
        output[op - lit - 1] = (byte)(lit - 1);
        if (lit == 0) op--;
        return op;
    }

    /// <summary>liblzf's hash of three bytes (VERY_FAST), to a table slot.</summary>
    private static int Index(uint h) => (int)(((h >> (3 * 8 - HashLog)) - h * 5) & (HashSize - 1));

    /// <summary>
    /// Decompresses <paramref name="input"/> into <paramref name="output"/>; the decompressed length, or
    /// -1 when the input is malformed or does not fit.
    /// </summary>
    public static int Decompress(ReadOnlySpan<byte> input, Span<byte> output)
    {
        int ip = 0, op = 0, n = input.Length, outEnd = output.Length;
        while (ip < n)
        {
            int ctrl = input[ip++];
            if (ctrl < 1 << 5)
            {
                ctrl++;
                if (op + ctrl > outEnd || ip + ctrl > n) return -1;
                input.Slice(ip, ctrl).CopyTo(output[op..]);
                ip += ctrl;
                op += ctrl;
            }
            else
            {
                int len = ctrl >> 5;
                int reference = op - ((ctrl & 0x1f) << 8) - 1;
                if (ip >= n) return -1;
                if (len == 7)
                {
                    len += input[ip++];
                    if (ip >= n) return -1;
                }
                reference -= input[ip++];
                len += 2;
                if (op + len > outEnd || reference < 0) return -1;
                if (op >= reference + len)
                {
                    output.Slice(reference, len).CopyTo(output[op..]);
                    op += len;
                }
                else
                {
                    // Overlapping: byte by byte, so a run repeats itself.
                    for (int k = 0; k < len; k++) output[op++] = output[reference++];
                }
            }
        }
        return op;
    }
}
