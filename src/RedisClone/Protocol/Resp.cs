namespace RedisClone.Protocol;

/// <summary>Every fixed reply the server sends, as UTF-8 literals, in one place.</summary>
internal static class Resp
{
    public static ReadOnlySpan<byte> Ok => "+OK\r\n"u8;
    public static ReadOnlySpan<byte> Pong => "+PONG\r\n"u8;
    public static ReadOnlySpan<byte> Queued => "+QUEUED\r\n"u8;
    /// <summary>MIGRATE when none of its keys exists.</summary>
    public static ReadOnlySpan<byte> NoKey => "+NOKEY\r\n"u8;
    public static ReadOnlySpan<byte> Crlf => "\r\n"u8;
    public static ReadOnlySpan<byte> Zero => ":0\r\n"u8;
    public static ReadOnlySpan<byte> One => ":1\r\n"u8;
    public static ReadOnlySpan<byte> MinusOne => ":-1\r\n"u8;
    public static ReadOnlySpan<byte> MinusTwo => ":-2\r\n"u8;
    public static ReadOnlySpan<byte> NullBulk => "$-1\r\n"u8;
    public static ReadOnlySpan<byte> NullArray => "*-1\r\n"u8;
    public static ReadOnlySpan<byte> Null3 => "_\r\n"u8;
    public static ReadOnlySpan<byte> EmptyArray => "*0\r\n"u8;
    public static ReadOnlySpan<byte> EmptyScan => "*2\r\n$1\r\n0\r\n*0\r\n"u8;
    public static ReadOnlySpan<byte> EmptyBulk => "$0\r\n\r\n"u8;
}
