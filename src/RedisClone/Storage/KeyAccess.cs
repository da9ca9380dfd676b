namespace RedisClone.Storage;

/// <summary>
/// What a key's access stamp (<see cref="KeyTable"/>'s side array) means, per server: under an LRU
/// or non-LFU maxmemory-policy it is the <see cref="LruClock"/> second of the last access (OBJECT
/// IDLETIME); under an LFU policy it is Redis's LFU word, the minute of the last decrement in the
/// high bits and a logarithmic access counter in the low 8 (OBJECT FREQ). As in Redis both share
/// one field, so switching policies at run time leaves the old figures to be reinterpreted until
/// keys are accessed again.
/// </summary>
/// <remarks>
/// The counter follows Redis's LFU rules: a new key starts at <see cref="InitialCounter"/>; each
/// access first takes off one per <c>lfu-decay-time</c> minutes elapsed since the stored minute,
/// then adds one with probability 1/((counter - 5) * lfu-log-factor + 1), up to 255. Written by
/// CONFIG SET (one volatile write per field), read under shard gates.
/// </remarks>
internal sealed class KeyAccess
{
    /// <summary>A new key's LFU counter (Redis's LFU_INIT_VAL), so it is not evicted before it had a chance.</summary>
    public const int InitialCounter = 5;

    private volatile bool _lfu;
    private volatile int _logFactor = 10;
    private volatile int _decayMinutes = 1;

    // A command from a CLIENT NO-TOUCH client (other than TOUCH) reads keys without stamping them.
    [ThreadStatic] private static bool t_noTouch;

    /// <summary>True under allkeys-lfu / volatile-lfu.</summary>
    public bool Lfu
    {
        get => _lfu;
        set => _lfu = value;
    }

    /// <summary>lfu-log-factor.</summary>
    public int LogFactor
    {
        get => _logFactor;
        set => _logFactor = value;
    }

    /// <summary>lfu-decay-time, in minutes (0: never decays).</summary>
    public int DecayMinutes
    {
        get => _decayMinutes;
        set => _decayMinutes = value;
    }

    /// <summary>Set by execution around a command of a CLIENT NO-TOUCH client (not for TOUCH).</summary>
    public static bool NoTouch
    {
        get => t_noTouch;
        set => t_noTouch = value;
    }

    /// <summary>The stamp of a key created now.</summary>
    public uint NewStamp() => _lfu ? (Minutes() << 8) | InitialCounter : LruClock.Now;

    /// <summary>The stamp of a key accessed now, given its stamp before.</summary>
    public uint Accessed(uint stamp)
    {
        if (!_lfu) return LruClock.Now;
        int counter = Increment(Decayed(stamp));
        return (Minutes() << 8) | (uint)counter;
    }

    /// <summary>A stamp saying the key was accessed with counter <paramref name="frequency"/> now (RESTORE FREQ).</summary>
    public static uint FrequencyStamp(int frequency) => (Minutes() << 8) | (uint)frequency;

    /// <summary>OBJECT FREQ: the counter after decay, without changing it.</summary>
    public int Decayed(uint stamp)
    {
        int counter = (int)(stamp & 255);
        int decay = _decayMinutes;
        if (decay == 0) return counter;
        long periods = ElapsedMinutes(stamp >> 8) / decay;
        return periods >= counter ? 0 : counter - (int)periods;
    }

    /// <summary>
    /// How good an eviction candidate a key with <paramref name="stamp"/> is under this mode: idle
    /// seconds under LRU, 255 minus the decayed counter under LFU. Larger is evicted first.
    /// </summary>
    public ulong EvictionScore(uint stamp)
        => _lfu ? (ulong)(255 - Decayed(stamp)) : (ulong)Math.Max(0, LruClock.SecondsSince(stamp));

    private int Increment(int counter)
    {
        if (counter >= 255) return 255;
        double r = Random.Shared.NextDouble();
        double baseValue = Math.Max(0, counter - InitialCounter);
        double p = 1.0 / (baseValue * _logFactor + 1);
        return r < p ? counter + 1 : counter;
    }

    private static uint Minutes() => LruClock.UnixMinutes;

    /// <summary>Minutes since a 16-bit minute stamp, across one wrap of the 16 bits.</summary>
    private static long ElapsedMinutes(uint then)
    {
        uint now = Minutes();
        return now >= then ? now - then : 65535 - then + now;
    }
}
