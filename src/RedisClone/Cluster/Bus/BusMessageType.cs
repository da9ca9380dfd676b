namespace RedisClone.Cluster.Bus;

/// <summary>The <c>type</c> field of a cluster bus message (Redis's CLUSTERMSG_TYPE_*), as on the wire.</summary>
/// <remarks>PING, PONG and MEET share one layout: a PONG answers a PING or MEET, and a MEET is a PING
/// that makes the receiver add an unknown sender. A value past <see cref="PublishShard"/> is a type
/// this version does not know; Redis accepts such a message as well formed and ignores it.</remarks>
internal enum BusMessageType : ushort
{
    Ping = 0,
    Pong = 1,
    Meet = 2,
    Fail = 3,
    Publish = 4,
    FailoverAuthRequest = 5,
    FailoverAuthAck = 6,
    Update = 7,
    MfStart = 8,
    Module = 9,
    PublishShard = 10,
}
