using System.Buffers;
using System.Runtime.CompilerServices;
using System.Text;
using RedisClone.Common;

namespace RedisClone.Protocol;

/// <summary>
/// Writes RESP replies into an <see cref="IBufferWriter{T}"/> (the connection's output pipe or a
/// shard's reply buffer), in RESP2 or RESP3 as the client chose with HELLO.
/// </summary>
/// <remarks>
/// RESP3-only types degrade as Redis degrades them for RESP2: null → <c>$-1</c> (or <c>*-1</c> for
/// arrays), map → flat array, set → array, double → bulk string, boolean → integer, verbatim → bulk,
/// big number → bulk; attributes are not sent in RESP2 at all.
/// </remarks>
internal readonly struct RespWriter
{
    private readonly IBufferWriter<byte> _out;

    public RespWriter(IBufferWriter<byte> output, int protocol)
    {
        _out = output;
        Protocol = protocol;
    }

    /// <summary>2 or 3.</summary>
    public int Protocol { get; }

    /// <summary>
    /// Replies written to the connection's output and not yet flushed (earlier commands of the same
    /// batch): Redis's clientHasPendingReplies. False for outputs that cannot tell.
    /// </summary>
    public bool HasPendingReplies => _out is System.IO.Pipelines.PipeWriter { CanGetUnflushedBytes: true } pipe && pipe.UnflushedBytes > 0;

    public bool IsResp3 => Protocol == 3;

    public IBufferWriter<byte> Output => _out;

    /// <summary>Copies a preformatted reply, such as <c>"+OK\r\n"u8</c>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Raw(ReadOnlySpan<byte> bytes)
    {
        var span = _out.GetSpan(bytes.Length);
        bytes.CopyTo(span);
        _out.Advance(bytes.Length);
    }

    public void Ok() => Raw(Resp.Ok);

    public void SimpleString(ReadOnlySpan<byte> text) => Line((byte)'+', text);

    public void SimpleString(string text) => LineAscii((byte)'+', text);

    /// <summary>An error line; <paramref name="text"/> includes its code ("ERR ...", "WRONGTYPE ...").</summary>
    public void Error(string text) => LineAscii((byte)'-', text);

    public void Error(ReadOnlySpan<byte> text) => Line((byte)'-', text);

    public void Integer(long value) => Prefixed((byte)':', value);

    public void Bulk(ReadOnlySpan<byte> value)
    {
        var span = _out.GetSpan(value.Length + 24);
        span[0] = (byte)'$';
        int n = 1 + RedisNumbers.FormatInt64(value.Length, span.Slice(1));
        span[n++] = (byte)'\r';
        span[n++] = (byte)'\n';
        if (value.Length <= span.Length - n - 2)
        {
            value.CopyTo(span.Slice(n));
            n += value.Length;
            span[n++] = (byte)'\r';
            span[n++] = (byte)'\n';
            _out.Advance(n);
            return;
        }
        _out.Advance(n);
        Raw(value);
        Raw(Resp.Crlf);
    }

    public void Bulk(string text) => Bulk(Encoding.UTF8.GetBytes(text));

    /// <summary>An integer sent as a bulk string (GET of a number, INCRBYFLOAT results...).</summary>
    public void BulkInteger(long value)
    {
        Span<byte> digits = stackalloc byte[24];
        int n = RedisNumbers.FormatInt64(value, digits);
        Bulk(digits.Slice(0, n));
    }

    /// <summary>Missing value: <c>$-1</c> in RESP2, <c>_</c> in RESP3.</summary>
    public void NullBulk() => Raw(IsResp3 ? Resp.Null3 : Resp.NullBulk);

    /// <summary>Missing array: <c>*-1</c> in RESP2, <c>_</c> in RESP3.</summary>
    public void NullArray() => Raw(IsResp3 ? Resp.Null3 : Resp.NullArray);

    public void ArrayHeader(long count) => Prefixed((byte)'*', count);

    public void MapHeader(long pairs)
    {
        if (IsResp3) Prefixed((byte)'%', pairs);
        else Prefixed((byte)'*', pairs * 2);
    }

    public void SetHeader(long count) => Prefixed(IsResp3 ? (byte)'~' : (byte)'*', count);

    public void Boolean(bool value)
    {
        if (IsResp3) Raw(value ? "#t\r\n"u8 : "#f\r\n"u8);
        else Raw(value ? Resp.One : Resp.Zero);
    }

    /// <summary>A double: <c>,1.5</c> in RESP3, a bulk string in RESP2, formatted as Redis does.</summary>
    public void Double(double value)
    {
        Span<byte> text = stackalloc byte[64];
        int n = RedisNumbers.FormatDouble(value, text);
        if (IsResp3) Line((byte)',', text.Slice(0, n));
        else Bulk(text.Slice(0, n));
    }

    /// <summary>Free text such as INFO: a verbatim string (<c>=len\r\ntxt:...</c>) in RESP3, bulk in RESP2.</summary>
    public void Verbatim(ReadOnlySpan<byte> text)
    {
        if (!IsResp3)
        {
            Bulk(text);
            return;
        }
        Prefixed((byte)'=', text.Length + 4);
        Raw("txt:"u8);
        Raw(text);
        Raw(Resp.Crlf);
    }

    /// <summary>The header of a RESP3 verbatim string (<c>=len</c>); the caller writes "fmt:", the text and CRLF.</summary>
    public void VerbatimHeader(long length) => Prefixed((byte)'=', length);

    /// <summary>
    /// A number too big for an integer reply: <c>(digits</c> in RESP3, a bulk string in RESP2.
    /// <paramref name="digits"/> is the decimal text, optionally signed.
    /// </summary>
    public void BigNumber(ReadOnlySpan<byte> digits)
    {
        if (IsResp3) Line((byte)'(', digits);
        else Bulk(digits);
    }

    /// <summary>
    /// A RESP3 attribute header (<c>|n</c>, then n key/value pairs) that decorates the reply after
    /// it. RESP2 has no attributes: callers send none there (Redis asserts the same).
    /// </summary>
    public void AttributeHeader(long pairs)
    {
        System.Diagnostics.Debug.Assert(IsResp3, "attributes exist only in RESP3");
        Prefixed((byte)'|', pairs);
    }

    /// <summary>A RESP3 push header (<c>&gt;n</c>); RESP2 uses an array.</summary>
    public void PushHeader(long count) => Prefixed(IsResp3 ? (byte)'>' : (byte)'*', count);

    private void Prefixed(byte prefix, long value)
    {
        var span = _out.GetSpan(24);
        span[0] = prefix;
        int n = 1 + RedisNumbers.FormatInt64(value, span.Slice(1));
        span[n++] = (byte)'\r';
        span[n++] = (byte)'\n';
        _out.Advance(n);
    }

    private void Line(byte prefix, ReadOnlySpan<byte> text)
    {
        var span = _out.GetSpan(text.Length + 3);
        span[0] = prefix;
        text.CopyTo(span.Slice(1));
        span[text.Length + 1] = (byte)'\r';
        span[text.Length + 2] = (byte)'\n';
        _out.Advance(text.Length + 3);
    }

    private void LineAscii(byte prefix, string text)
    {
        // Latin-1, one byte per char: error texts carry user bytes one char per byte (see
        // RespErrors.Latin). A char past Latin-1 (from an exception's message, say) is '?': an
        // encoder's best fit may write several bytes for one char, past the span asked for, which
        // threw out of the reply writer and ended the server.
        var span = _out.GetSpan(text.Length + 3);
        span[0] = prefix;
        var body = span.Slice(1, text.Length);
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            // A reply line cannot carry CR or LF; Redis replaces them with spaces in error texts.
            body[i] = c is '\r' or '\n' ? (byte)' ' : c <= '\u00ff' ? (byte)c : (byte)'?';
        }
        span[text.Length + 1] = (byte)'\r';
        span[text.Length + 2] = (byte)'\n';
        _out.Advance(text.Length + 3);
    }
}
