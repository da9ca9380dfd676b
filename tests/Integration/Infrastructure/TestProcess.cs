using System.Runtime.CompilerServices;

namespace RedisClone.Tests.Infrastructure;

/// <summary>Settings for the whole test process, applied when the test assembly loads.</summary>
internal static class TestProcess
{
    /// <summary>
    /// Worker threads the thread pool starts at once, without its starvation delay (it otherwise adds
    /// about one thread per half second beyond the processor count).
    /// </summary>
    public const int MinWorkerThreads = 128;

    /// <remarks>
    /// The suite blocks pool threads on purpose: blocking clients run in Task.Run, the in-process
    /// servers sleep and wait where Redis would (DEBUG SLEEP, SAVE behind a rewrite), and
    /// StackExchange.Redis itself waits on a pool thread, in Monitor.Wait, for a transaction's
    /// condition replies, which another pool thread must read. With the default minimum (the core
    /// count, 2 here) such a transaction timed out in CI (UNWATCH after 10 s, `qs: 0`, the reply read
    /// but never processed); 40 sleeping work items reproduce it (see StackExchangeRedisTests).
    /// </remarks>
    [ModuleInitializer]
    internal static void Initialize()
    {
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(Math.Max(workers, MinWorkerThreads), io);
    }
}
