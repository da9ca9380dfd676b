using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// The marker a key table entry holds as its value when a small string value is embedded: the
/// entry's <see cref="KeyTable.Entry.Bytes"/> array holds the key's bytes followed by the value's,
/// so a key with a small string costs one allocation instead of two (Redis's OBJ_ENCODING_EMBSTR
/// puts the object header and the string in one allocation for the same reason).
/// </summary>
/// <remarks>
/// <para>
/// One marker exists per key length and every entry with that key length shares it, so the key's
/// length costs the entry nothing: the 32-byte <see cref="KeyTable.Entry"/> has no room left for it.
/// The value's length is the array's length less the key's.
/// </para>
/// <para>
/// Every string write that goes through <see cref="Database.AddString"/> or
/// <see cref="Database.ReplaceString"/> (SET and its variants, the counters, MSET) embeds a value
/// that fits; growing it in place (APPEND, SETRANGE past its end) makes it a
/// <see cref="GrowableString"/> and gives the key its own array again. Readers never look for
/// the marker: <see cref="StringValue.TryGet"/> shows it as the value's span and
/// <see cref="KeyTable.Entry.Key"/> shows only the key. The value part of the array is overwritten
/// in place by a value of the same length, so the array is never handed out: callers that keep a
/// key take a copy (<see cref="KeyTable.Entry.KeyArray"/>).
/// </para>
/// </remarks>
internal sealed class EmbeddedString
{
    /// <summary>Longest key embedded with its value.</summary>
    public const int MaxKeyLength = 127;

    /// <summary>Longest value embedded (Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT).</summary>
    public const int MaxValueLength = 44;

    private static readonly EmbeddedString[] Markers = CreateMarkers();

    private EmbeddedString(int keyLength) => KeyLength = keyLength;

    /// <summary>How many of the entry's bytes are the key; the rest are the value.</summary>
    public readonly int KeyLength;

    /// <summary>True when a key and value of these lengths are stored embedded.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Fits(int keyLength, int valueLength)
        => (uint)keyLength <= MaxKeyLength && (uint)valueLength <= MaxValueLength;

    /// <summary>The shared marker for keys of <paramref name="keyLength"/> bytes (one that <see cref="Fits"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static EmbeddedString For(int keyLength) => Markers[keyLength];

    /// <summary>One array holding <paramref name="key"/> then <paramref name="value"/>.</summary>
    public static byte[] Pack(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        var bytes = GC.AllocateUninitializedArray<byte>(key.Length + value.Length);
        key.CopyTo(bytes);
        value.CopyTo(bytes.AsSpan(key.Length));
        return bytes;
    }

    private static EmbeddedString[] CreateMarkers()
    {
        var markers = new EmbeddedString[MaxKeyLength + 1];
        for (int i = 0; i < markers.Length; i++) markers[i] = new EmbeddedString(i);
        return markers;
    }
}
