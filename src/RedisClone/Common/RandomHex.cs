namespace RedisClone.Common;

/// <summary>
/// Random identifiers as Redis prints them: 40 lower-case hex digits (run_id, master_replid).
/// </summary>
/// <remarks>
/// Unique per run, not secret (Redis draws them from a SHA1 counter seeded once from /dev/urandom):
/// <see cref="Random.Shared"/>, seeded by the OS, is enough, and unlike RandomNumberGenerator it
/// does not load the crypto library into an idle server (about 5 MB of RSS).
/// </remarks>
internal static class RandomHex
{
    public static string Next40()
    {
        Span<byte> bytes = stackalloc byte[20];
        Random.Shared.NextBytes(bytes);
        return Convert.ToHexStringLower(bytes);
    }
}
