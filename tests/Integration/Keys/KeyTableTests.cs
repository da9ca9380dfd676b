using System.Runtime.CompilerServices;
using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Keys;

/// <summary>The key table's slot layout: a TTL kept beside the entries, flagged in the hash word (issue 30).</summary>
public sealed class KeyTableTests
{
    private static byte[] K(int i) => Encoding.ASCII.GetBytes($"key:{i:D12}");

    [Fact]
    public void Entry_HoldsNoExpiryTime_Is24Bytes()
        // Two references and two ints: a key without a TTL pays no 8 bytes for one (1M keys: 8 MB).
        => Assert.Equal(24, Unsafe.SizeOf<KeyTable.Entry>());

    [Fact]
    public void SetExpireAt_AcrossGrowth_KeepsTimesHashesAndRawFlag()
    {
        var table = new KeyTable();
        var value = new byte[32];
        for (int i = 0; i < 5000; i++)
        {
            int slot = table.AddEmbedded(K(i), value);
            if (i % 3 == 0) table.SetExpireAt(slot, 1_000_000 + i);
            if (i % 5 == 0) table.At(slot).HashAndFlag |= KeyTable.RawFlag;
        }
        for (int i = 0; i < 5000; i++)
        {
            int slot = table.Find(K(i));
            Assert.True(slot >= 0, $"key {i} not found");
            Assert.Equal(i % 3 == 0 ? 1_000_000 + i : 0, table.ExpireAt(slot));
            Assert.Equal(i % 3 == 0, table.At(slot).HasTtl);
            Assert.Equal(i % 5 == 0, (table.At(slot).HashAndFlag & KeyTable.RawFlag) != 0);
            if (i % 3 == 0) table.SetExpireAt(slot, 0); // PERSIST
        }
        for (int i = 0; i < 5000; i++)
        {
            int slot = table.Find(K(i));
            Assert.Equal(0, table.ExpireAt(slot));
            Assert.False(table.At(slot).HasTtl);
            Assert.Equal(i % 5 == 0, (table.At(slot).HashAndFlag & KeyTable.RawFlag) != 0);
        }
    }

    [Fact]
    public void RemoveAt_ThenReuse_StartsWithoutTtl()
    {
        var table = new KeyTable();
        int a = table.AddEmbedded(K(1), new byte[4]);
        table.AddEmbedded(K(2), new byte[4]);
        table.SetExpireAt(a, 123);
        table.RemoveAt(a);
        int b = table.AddEmbedded(K(3), new byte[4]);
        Assert.Equal(a, b); // the freed slot is reused
        Assert.Equal(0, table.ExpireAt(b));
        Assert.False(table.At(b).HasTtl);
    }

    [Fact]
    public void Grow_OfBigArrays_TellsTheMemoryReclaimer()
    {
        long before = RedisClone.Common.ReleasedMemory.Resized;
        var table = new KeyTable();
        for (int i = 0; i < 100_000; i++) table.AddEmbedded(K(i), new byte[8]);
        // Growing from 65,536 to 131,072 slots dropped arrays of 65,536 slots (2 MB); smaller ones are not counted.
        Assert.True(RedisClone.Common.ReleasedMemory.Resized - before >= 65_536L * KeyTable.SlotBytes);
    }
}
