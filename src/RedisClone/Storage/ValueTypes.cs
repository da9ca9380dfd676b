using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// Questions the keyspace commands ask of any stored value, whatever its class: its type name
/// (TYPE, SCAN TYPE), its encoding and reference count (OBJECT), and a deep copy (COPY).
/// </summary>
/// <remarks>
/// Strings are a <c>byte[]</c> or a <see cref="GrowableString"/> (or, should a family ever store
/// one, a boxed <c>long</c>) and are answered here; every other type implements <see cref="IRedisValue"/>. An unknown class is
/// answered gracefully ("none", "unknown") rather than with an exception, except by
/// <see cref="DeepCopy"/>, which cannot invent a copy.
/// </remarks>
internal static class ValueTypes
{
    /// <summary>Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT: strings up to this length are embstr.</summary>
    private const int EmbstrSizeLimit = 44;

    /// <summary>Redis's OBJ_SHARED_INTEGERS: integers below it are shared objects.</summary>
    private const long SharedIntegers = 10000;

    /// <summary>OBJ_SHARED_REFCOUNT: the refcount Redis reports for its shared objects.</summary>
    private const long SharedRefCount = int.MaxValue;

    /// <summary>TYPE's answer: "string", what an <see cref="IRedisValue"/> says, or "none" for an unknown class.</summary>
    public static string TypeName(object? value) => value switch
    {
        EmbeddedString or byte[] or GrowableString or long => "string",
        IRedisValue v => v.TypeName,
        _ => "none",
    };

    /// <summary>
    /// OBJECT ENCODING. For a string, <paramref name="raw"/> is the entry's <see cref="KeyTable.RawFlag"/>
    /// (edited in place: always "raw", as Redis's in-place edits leave a raw object even for digits;
    /// a <see cref="GrowableString"/> was always edited in place).
    /// Otherwise Redis's rule for a freshly stored string: a canonical 64-bit integer is "int",
    /// up to 44 bytes "embstr", longer "raw".
    /// </summary>
    public static string EncodingName(object value, bool raw)
    {
        switch (value)
        {
            case long:
                return "int";
            case GrowableString:
                return "raw";
            case byte[] s:
                return StringEncodingName(s, raw);
            case IRedisValue v:
                return v.Encoding;
            default:
                return "unknown";
        }
    }

    /// <summary><see cref="EncodingName(object, bool)"/> of a stored entry, whose string may be embedded in it.</summary>
    public static string EncodingName(in KeyTable.Entry entry)
    {
        bool raw = (entry.HashAndFlag & KeyTable.RawFlag) != 0;
        return entry.IsEmbedded && StringValue.TryGet(in entry, out var s)
            ? StringEncodingName(s, raw)
            : EncodingName(entry.Value, raw);
    }

    /// <summary><see cref="RefCount(object, bool)"/> of a stored entry, whose string may be embedded in it.</summary>
    public static long RefCount(in KeyTable.Entry entry)
    {
        bool raw = (entry.HashAndFlag & KeyTable.RawFlag) != 0;
        return entry.IsEmbedded && StringValue.TryGet(in entry, out var s)
            ? SharedIntegerRefCount(!raw && IsIntEncoded(s, out long n) ? n : -1)
            : RefCount(entry.Value, raw);
    }

    private static string StringEncodingName(ReadOnlySpan<byte> s, bool raw)
    {
        if (raw) return "raw";
        if (IsIntEncoded(s, out _)) return "int";
        return s.Length <= EmbstrSizeLimit ? "embstr" : "raw";
    }

    /// <summary>
    /// OBJECT REFCOUNT: Redis stores the integers 0..9999 as shared objects and reports INT_MAX for
    /// them; every other value belongs to one key and reports 1.
    /// </summary>
    public static long RefCount(object value, bool raw)
    {
        long n = -1;
        if (value is long l) n = l;
        else if (value is byte[] s && !raw && IsIntEncoded(s, out long parsed)) n = parsed;
        return SharedIntegerRefCount(n);
    }

    private static long SharedIntegerRefCount(long n) => n >= 0 && n < SharedIntegers ? SharedRefCount : 1;

    /// <summary>
    /// A copy that shares no mutable state with <paramref name="value"/> (byte arrays are cloned). A
    /// grown string copies to an exact array, as Redis's dupStringObject copies a raw string without
    /// its spare room; COPY keeps the raw flag, so it is still "raw".
    /// </summary>
    public static object DeepCopy(object value) => value switch
    {
        byte[] s => s.AsSpan().ToArray(),
        GrowableString g => g.Span.ToArray(),
        long => value, // an immutable box
        IRedisValue v => v.DeepCopy(),
        _ => throw new InvalidOperationException($"cannot copy a value of type {value.GetType().Name}"),
    };

    /// <summary>Redis stores a string as an integer when it is string2ll's canonical form (at most 20 chars).</summary>
    private static bool IsIntEncoded(ReadOnlySpan<byte> s, out long value)
    {
        value = 0;
        return s.Length <= 20 && RedisNumbers.TryParseInt64(s, out value);
    }
}
