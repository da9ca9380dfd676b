using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// The one way to read a stored string, whatever form it has: embedded after its key in the entry's
/// array (<see cref="EmbeddedString"/>: SET, INCR... of a small value), an exact <c>byte[]</c> (a
/// larger value) or a <see cref="GrowableString"/> (edited in place by APPEND or SETRANGE).
/// </summary>
/// <remarks>
/// Every reader of string values goes through here, so none can forget a form: a test for
/// <c>byte[]</c> alone would answer WRONGTYPE for an appended or embedded string. It takes the
/// entry, not the value, because an embedded value's bytes live in the entry's key array. The
/// checks compare exact types (the classes are sealed), which is what GET's hot path pays.
/// </remarks>
internal static class StringValue
{
    /// <summary>True with the string's bytes when the entry holds a string; false for other types.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryGet(in KeyTable.Entry entry, out ReadOnlySpan<byte> bytes)
    {
        object value = entry.Value;
        var type = value.GetType();
        if (type == typeof(EmbeddedString))
        {
            int keyLength = Unsafe.As<EmbeddedString>(value).KeyLength;
            byte[] all = entry.Bytes;
            bytes = new ReadOnlySpan<byte>(all, keyLength, all.Length - keyLength);
            return true;
        }
        if (type == typeof(byte[]))
        {
            bytes = Unsafe.As<byte[]>(value);
            return true;
        }
        if (type == typeof(GrowableString))
        {
            bytes = Unsafe.As<GrowableString>(value).Span;
            return true;
        }
        bytes = default;
        return false;
    }

    /// <summary>
    /// The string's bytes to overwrite in place (SETRANGE within its length); the entry must hold a
    /// string. Writing into them changes the stored value.
    /// </summary>
    public static Span<byte> Writable(in KeyTable.Entry entry)
    {
        object value = entry.Value;
        if (value is EmbeddedString embedded) return entry.Bytes.AsSpan(embedded.KeyLength);
        if (value is GrowableString grown) return grown.Writable;
        return (byte[])value;
    }

    /// <summary>
    /// The value as an object that stands alone: the stored object, or for an embedded string a
    /// copy of its bytes. For cold paths that handle any type as an object (DEBUG, SORT's type check).
    /// </summary>
    public static object Detached(in KeyTable.Entry entry)
        => entry.Value is EmbeddedString embedded ? entry.Bytes.AsSpan(embedded.KeyLength).ToArray() : entry.Value;
}
