using System.Net.Security;

namespace RedisClone.Cluster.Bus;

/// <summary>Settings shared by a node's bus links; changes (CONFIG SET) apply to every link at once.</summary>
internal sealed class BusOptions
{
    /// <summary>
    /// The largest message a link accepts (totlen); a peer announcing more is disconnected. Redis has
    /// no such cap (its totlen may claim up to 4 GB, and its buffer grows as bytes arrive); this one
    /// allows a PUBLISH of a 512 MB payload (proto-max-bulk-len's default) with its header. Memory
    /// for a message still grows only with the bytes that actually arrived.
    /// </summary>
    public long MaxMessageLength { get; set; } = 512L * 1024 * 1024 + BusLayout.HeaderLength + BusLayout.PublishFixedLength;

    /// <summary>
    /// cluster-link-sendbuf-limit: a link whose bytes queued for sending exceed it is freed (0: no
    /// limit, Redis's default). Redis checks in its cron, ten times a second; here every send checks.
    /// </summary>
    public long SendBufferLimit
    {
        get => Volatile.Read(ref _sendBufferLimit);
        set => Volatile.Write(ref _sendBufferLimit, value);
    }

    private long _sendBufferLimit;

    /// <summary>How long an outgoing connection may take (Redis uses its node timeout for the handshake).</summary>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(15);

    /// <summary>TCP keepalive interval, as Redis's connKeepAlive(node_timeout/1000*2) on accepted links; 0 leaves it off.</summary>
    public int KeepAliveSeconds { get; set; } = 30;

    /// <summary>
    /// tls-cluster for accepted links: the options of the handshake a new connection must pass, asked
    /// at each accept (a CONFIG SET applies from the next one); null, or a null answer, for plain TCP.
    /// </summary>
    public Func<SslServerAuthenticationOptions?>? ServerTls { get; set; }

    /// <summary>
    /// tls-cluster for outgoing links: the handshake's options for a node at the given host, asked at
    /// each connect; null, or a null answer, for plain TCP.
    /// </summary>
    public Func<string, SslClientAuthenticationOptions?>? ClientTls { get; set; }

    /// <summary>Receives the lines Redis logs about the bus (level, text); null drops them.</summary>
    public Action<BusLogLevel, string>? Log { get; set; }
}
