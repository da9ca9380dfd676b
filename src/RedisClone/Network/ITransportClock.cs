namespace RedisClone.Network;

/// <summary>
/// A transport that can tell the time more cheaply than a clock read (an event loop reads the clock
/// once per batch of events); connections over other transports read the clock per batch of commands.
/// </summary>
internal interface ITransportClock
{
    /// <summary>Unix time in milliseconds.</summary>
    long NowMs { get; }
}
