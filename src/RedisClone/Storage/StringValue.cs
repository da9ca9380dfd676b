using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// The one way to read a stored string, whatever form it has: an exact <c>byte[]</c> (SET, INCR and
/// every fresh value) or a <see cref="GrowableString"/> (edited in place by APPEND or SETRANGE).
/// </summary>
/// <remarks>
/// Every reader of string values goes through here, so none can forget a form: a test for
/// <c>byte[]</c> alone would answer WRONGTYPE for an appended string. The checks compare exact
/// types (both classes are sealed), which is what GET's hot path pays.
/// </remarks>
internal static class StringValue
{
    /// <summary>True with the string's bytes when <paramref name="value"/> is a string; false otherwise (null included).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryGet(object? value, out ReadOnlySpan<byte> bytes)
    {
        if (value != null)
        {
            var type = value.GetType();
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
        }
        bytes = default;
        return false;
    }
}
