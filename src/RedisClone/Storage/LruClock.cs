namespace RedisClone.Storage;

/// <summary>
/// The clock behind OBJECT IDLETIME: whole seconds of the monotonic tick count, so a wall-clock
/// step never makes a key look idle for years or negative. Redis keeps a 24-bit seconds clock in
/// every object; here a key's stamp lives in <see cref="KeyTable"/>'s side array.
/// </summary>
internal static class LruClock
{
    private static uint _now = Read();

    // Redis refreshes its LRU clock from a timer too: reading the clock on every key access would
    // cost a clock call per command for a value with one-second resolution. The shard threads
    // refresh it every 100 ms (see Shard.Run), on dedicated threads a busy thread pool cannot delay.

    /// <summary>Reads the clock into <see cref="Now"/>.</summary>
    public static void Refresh()
    {
        Volatile.Write(ref _now, Read());
        Volatile.Write(ref _minutes, ReadMinutes());
    }

    private static uint _minutes = ReadMinutes();

    /// <summary>Minutes of Unix time in 16 bits, refreshed with <see cref="Now"/> (the LFU word's clock, as Redis's LFUGetTimeInMinutes).</summary>
    public static uint UnixMinutes => Volatile.Read(ref _minutes);

    private static uint ReadMinutes() => (uint)(DateTimeOffset.UtcNow.ToUnixTimeSeconds() / 60) & 0xFFFF;

    /// <summary>The current stamp; 32 bits of seconds wrap after 136 years of uptime.</summary>
    public static uint Now => Volatile.Read(ref _now);

    private static uint Read() => (uint)(Environment.TickCount64 / 1000);

    /// <summary>Seconds since <paramref name="stamp"/> (unsigned subtraction stays right across a wrap).</summary>
    public static long SecondsSince(uint stamp) => Read() - stamp;
}
