using RedisClone.Server;

namespace RedisClone.Tests.Server;

/// <summary>When the server runs a full collection to give memory back (the rule, not the timing).</summary>
public class MemoryReclaimerTests
{
    private const long MB = 1 << 20;

    [Theory]
    // After DEL of 1 GB: 2 GB resident, no data left.
    [InlineData(2048, 0, 1024, 60_000, 10, true)]
    // Too soon after the last collection.
    [InlineData(2048, 0, 1024, 1_000, 10, false)]
    // The last collection paused 500 ms: the next waits 10 s (pauses stay under 5% of the time).
    [InlineData(2048, 0, 1024, 9_000, 500, false)]
    [InlineData(2048, 0, 1024, 10_000, 500, true)]
    // A 5 s pause (a loaded machine) asks for at most 30 s.
    [InlineData(2048, 0, 1024, 29_000, 5_000, false)]
    [InlineData(2048, 0, 1024, 30_000, 5_000, true)]
    // Mostly data: a pause would buy little.
    [InlineData(2048, 1100, 1024, 60_000, 10, false)]
    // Loading data lets nothing go, nor does a server at rest after the last collection.
    [InlineData(2048, 900, 0, 60_000, 10, false)]
    // Too little to give back to be worth a pause.
    [InlineData(70, 10, 1024, 60_000, 10, false)]
    public void ShouldCollect_FollowsTheRule(long rssMb, long accountedMb, long letGoMb, long sinceMs, long lastPauseMs, bool expected)
        => Assert.Equal(expected, MemoryReclaimer.ShouldCollect(rssMb * MB, rssMb * MB, accountedMb * MB, letGoMb * MB, sinceMs, lastPauseMs));

    [Fact]
    public void ShouldCollect_WhileResidentSizeGrows_Waits()
    {
        // Mid-upload of a second 512 MB value: 3 GB resident, 512 MB data, 600 MB more than a second ago.
        Assert.False(MemoryReclaimer.ShouldCollect(3100 * MB, 2500 * MB, 512 * MB, 1024 * MB, 60_000, 10));
        Assert.True(MemoryReclaimer.ShouldCollect(3100 * MB, 3100 * MB, 512 * MB, 1024 * MB, 60_000, 10));
    }

    [Theory]
    // 1M small keys loaded: the tables' doublings replaced about 33 MB of arrays; the load is over.
    [InlineData(180, 180, 33, 60_000, 10, true)]
    // Still loading: the resident size grew 40 MB in the last second.
    [InlineData(180, 140, 33, 60_000, 10, false)]
    // Small tables: too little to give back.
    [InlineData(60, 60, 8, 60_000, 10, false)]
    // Too soon after the last collection, which paused 500 ms.
    [InlineData(180, 180, 33, 9_000, 500, false)]
    public void ShouldCompactAfterGrowth_FollowsTheRule(long rssMb, long previousRssMb, long resizedMb, long sinceMs, long lastPauseMs, bool expected)
        => Assert.Equal(expected, MemoryReclaimer.ShouldCompactAfterGrowth(rssMb * MB, previousRssMb * MB, resizedMb * MB, sinceMs, lastPauseMs));

    [Theory]
    // 100,000 small hashes loaded into an empty server: the data grew 30 MB; the load is over.
    [InlineData(100, 100, 30, 0, 0, 60_000, 10, true)]
    // Still loading: the resident size grew 40 MB in the last second.
    [InlineData(100, 60, 30, 0, 0, 60_000, 10, false)]
    // Too little growth to be worth a pause.
    [InlineData(100, 100, 12, 0, 0, 60_000, 10, false)]
    // 1 GB of data compacted last time: 300 MB more is under half of it.
    [InlineData(1500, 1500, 1300, 1000, 1000, 60_000, 10, false)]
    [InlineData(1500, 1500, 1500, 1000, 1000, 60_000, 10, true)]
    // Emptied (FLUSHALL) and loaded again: growth counts from the low.
    [InlineData(1500, 1500, 600, 0, 1000, 60_000, 10, true)]
    // Too soon after the last collection, which paused 500 ms.
    [InlineData(100, 100, 30, 0, 0, 9_000, 500, false)]
    public void ShouldCompactAfterDataGrowth_FollowsTheRule(long rssMb, long previousRssMb, long accountedMb, long lowMb,
        long atCollectMb, long sinceMs, long lastPauseMs, bool expected)
        => Assert.Equal(expected, MemoryReclaimer.ShouldCompactAfterDataGrowth(rssMb * MB, previousRssMb * MB, accountedMb * MB,
            lowMb * MB, atCollectMb * MB, sinceMs, lastPauseMs));

    [Theory]
    [InlineData(100, true)]
    [InlineData(256, true)]
    [InlineData(257, false)]  // a bigger heap's compaction pauses for hundreds of milliseconds
    [InlineData(4096, false)]
    public void GrowthCompactionAllowed_OnlyUpTo256MBOfData(long accountedMb, bool expected)
        => Assert.Equal(expected, MemoryReclaimer.GrowthCompactionAllowed(accountedMb * MB));
}
