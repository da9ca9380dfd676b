using System.Buffers;
using RedisClone.Common;

namespace RedisClone.Tests.Common;

/// <summary>The connection buffers' pool keeps small blocks only; big ones go back to the GC.</summary>
public class BufferPoolTests
{
    [Fact]
    public void Return_BlockAboveCap_IsNotPooled()
    {
        var big = BufferPool.Rent(BufferPool.MaxPooled + 1);
        long released = ReleasedMemory.Total;
        BufferPool.Return(big);
        Assert.True(ReleasedMemory.Total - released >= big.Length);
        // Had it gone to the shared pool, this thread's next rent of that size would get it back.
        var again = ArrayPool<byte>.Shared.Rent(big.Length);
        Assert.NotSame(big, again);
        ArrayPool<byte>.Shared.Return(again);
    }

    [Fact]
    public void Return_SmallBlock_IsReused()
    {
        var small = BufferPool.Rent(16 * 1024);
        BufferPool.Return(small);
        Assert.Same(small, BufferPool.Rent(16 * 1024));
    }
}
