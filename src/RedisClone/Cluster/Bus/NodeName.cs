using System.Runtime.CompilerServices;
using System.Text;

namespace RedisClone.Cluster.Bus;

/// <summary>
/// A node's name (its id) as the bus carries it: 40 bytes, normally lowercase hex of 20 random
/// bytes; all zero in a header's <c>slaveof</c> means "no master". Stored inline (no allocation).
/// </summary>
[InlineArray(BusLayout.NameLength)]
internal struct NodeName : IEquatable<NodeName>
{
    private byte _element0;

    /// <summary>The 40 bytes at the start of <paramref name="bytes"/>.</summary>
    public static NodeName From(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length < BusLayout.NameLength) throw new ArgumentException("a node name is 40 bytes", nameof(bytes));
        NodeName name = default;
        bytes[..BusLayout.NameLength].CopyTo(name);
        return name;
    }

    /// <summary>A 40-character name given as text (ASCII).</summary>
    public static NodeName Parse(string text)
    {
        if (text.Length != BusLayout.NameLength) throw new ArgumentException("a node name is 40 characters", nameof(text));
        NodeName name = default;
        Encoding.ASCII.GetBytes(text, name);
        return name;
    }

    /// <summary>A new random name, as Redis's getRandomHexChars makes one (lowercase hex).</summary>
    public static NodeName Random()
    {
        Span<byte> raw = stackalloc byte[BusLayout.NameLength / 2];
        System.Security.Cryptography.RandomNumberGenerator.Fill(raw);
        NodeName name = default;
        Span<byte> dest = name;
        for (int i = 0; i < raw.Length; i++)
        {
            dest[2 * i] = (byte)"0123456789abcdef"[raw[i] >> 4];
            dest[2 * i + 1] = (byte)"0123456789abcdef"[raw[i] & 15];
        }
        return name;
    }

    /// <summary>All zero: no node (a master's <c>slaveof</c>).</summary>
    public readonly bool IsNull
    {
        get
        {
            ReadOnlySpan<byte> self = this;
            return !self.ContainsAnyExcept((byte)0);
        }
    }

    public readonly void CopyTo(Span<byte> destination)
    {
        ReadOnlySpan<byte> self = this;
        self.CopyTo(destination);
    }

    public readonly bool Equals(NodeName other)
    {
        ReadOnlySpan<byte> self = this;
        ReadOnlySpan<byte> that = other;
        return self.SequenceEqual(that);
    }

    /// <summary>Whether the 40 bytes at the start of <paramref name="bytes"/> are this name.</summary>
    public readonly bool Equals(ReadOnlySpan<byte> bytes)
    {
        ReadOnlySpan<byte> self = this;
        return bytes.Length >= BusLayout.NameLength && self.SequenceEqual(bytes[..BusLayout.NameLength]);
    }

    public override readonly bool Equals(object? obj) => obj is NodeName other && Equals(other);

    public override readonly int GetHashCode()
    {
        ReadOnlySpan<byte> self = this;
        var hash = new HashCode();
        hash.AddBytes(self);
        return hash.ToHashCode();
    }

    /// <summary>The name as text (Latin-1: every byte one character, whatever a peer sent).</summary>
    public override readonly string ToString()
    {
        ReadOnlySpan<byte> self = this;
        return Encoding.Latin1.GetString(self);
    }

    public static bool operator ==(NodeName left, NodeName right) => left.Equals(right);

    public static bool operator !=(NodeName left, NodeName right) => !left.Equals(right);
}
