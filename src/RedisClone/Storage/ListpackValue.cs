using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>One element read from a listpack: an integer, or a byte range of the buffer.</summary>
internal readonly struct ListpackValue
{
    public ListpackValue(long integer)
    {
        IsInt = true;
        Int = integer;
    }

    public ListpackValue(int start, int length)
    {
        Start = start;
        Length = length;
    }

    /// <summary>True when the element was stored as an integer (its text is the canonical decimal form).</summary>
    public readonly bool IsInt;
    public readonly long Int;
    /// <summary>For a string element: where its bytes start in the buffer, and how many.</summary>
    public readonly int Start;
    public readonly int Length;

    /// <summary>The element's length as text: what Redis's sdslen would say once decoded.</summary>
    public int TextLength => IsInt ? RedisNumbers.DigitCount(Int) : Length;
}
