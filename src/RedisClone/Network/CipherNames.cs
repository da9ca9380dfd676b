using System.Net.Security;

namespace RedisClone.Network;

/// <summary>
/// tls-ciphers (TLS 1.2 and below, OpenSSL's names: <c>ECDHE-RSA-AES256-GCM-SHA384</c>) and
/// tls-ciphersuites (TLS 1.3: <c>TLS_AES_256_GCM_SHA384</c>) turned into the one list .NET's
/// <see cref="CipherSuitesPolicy"/> takes for both. IANA names (<c>TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384</c>)
/// are accepted in tls-ciphers too.
/// </summary>
/// <remarks>
/// OpenSSL's cipher-string language (HIGH, DEFAULT, !aNULL, +RSA, @STRENGTH...) selects from
/// OpenSSL's own tables; .NET takes explicit suites only, so a tls-ciphers with such words is logged
/// and leaves TLS 1.2's defaults in place. Names OpenSSL would not know are skipped, as OpenSSL skips
/// them; a list of which nothing is usable fails, as it fails for OpenSSL. Setting one of the two
/// parameters keeps the other's defaults (the policy replaces both).
/// </remarks>
internal static class CipherNames
{
    /// <summary>OpenSSL's default TLS 1.3 suites, in its order.</summary>
    private static readonly TlsCipherSuite[] Tls13Defaults =
    [
        TlsCipherSuite.TLS_AES_256_GCM_SHA384, TlsCipherSuite.TLS_CHACHA20_POLY1305_SHA256, TlsCipherSuite.TLS_AES_128_GCM_SHA256,
    ];

    /// <summary>The forward-secret AEAD and CBC suites of OpenSSL 3's default TLS 1.2 list, in its order.</summary>
    private static readonly TlsCipherSuite[] Tls12Defaults =
    [
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        TlsCipherSuite.TLS_DHE_RSA_WITH_AES_256_GCM_SHA384, TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, TlsCipherSuite.TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        TlsCipherSuite.TLS_DHE_RSA_WITH_AES_128_GCM_SHA256, TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384, TlsCipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
        TlsCipherSuite.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
    ];

    /// <summary>
    /// The suites to allow, or null for .NET's defaults (both lists unusable as explicit names);
    /// false (logged) when a list names nothing usable.
    /// </summary>
    public static bool TryBuild(string ciphers, string ciphersuites, Action<string> warn, out List<TlsCipherSuite>? suites)
    {
        suites = null;
        List<TlsCipherSuite>? tls12 = null, tls13 = null;
        if (ciphers.Length > 0)
        {
            var (names, keywords) = Map(ciphers, tls13: false);
            if (keywords)
                warn($"tls-ciphers '{ciphers}' uses OpenSSL's cipher-string keywords, which cannot be applied here: TLS 1.2 keeps its default ciphers");
            else if (names.Count == 0)
            {
                warn($"Failed to configure ciphers: {ciphers}");
                return false;
            }
            else tls12 = names;
        }
        if (ciphersuites.Length > 0)
        {
            var (names, keywords) = Map(ciphersuites, tls13: true);
            if (names.Count == 0 || keywords)
            {
                warn($"Failed to configure ciphersuites: {ciphersuites}");
                return false;
            }
            tls13 = names;
        }
        if (tls12 == null && tls13 == null) return true;
        suites = [.. tls13 ?? [.. Tls13Defaults], .. tls12 ?? [.. Tls12Defaults]];
        return true;
    }

    /// <summary>The names in a colon-, comma- or space-separated list that map to a suite, and whether OpenSSL keywords appeared.</summary>
    private static (List<TlsCipherSuite> Names, bool Keywords) Map(string list, bool tls13)
    {
        var names = new List<TlsCipherSuite>();
        bool keywords = false;
        foreach (string token in list.Split([':', ',', ' '], StringSplitOptions.RemoveEmptyEntries))
        {
            if (token.StartsWith("TLS_", StringComparison.Ordinal) && Enum.TryParse(token, out TlsCipherSuite iana) &&
                Enum.IsDefined(iana) && IsTls13(token) == tls13)
            {
                if (!names.Contains(iana)) names.Add(iana);
                continue;
            }
            if (!tls13 && FromOpenSsl(token) is { } mapped)
            {
                if (!names.Contains(mapped)) names.Add(mapped);
                continue;
            }
            // "!aNULL", "+RSA", "-DES", "@STRENGTH", "HIGH", "DEFAULT", "kEECDH": selectors, not names.
            if (token[0] is '!' or '+' or '-' or '@' || !token.Contains('-') && !token.Contains('_')) keywords = true;
        }
        return (names, keywords);
    }

    private static bool IsTls13(string iana) => !iana.Contains("_WITH_", StringComparison.Ordinal);

    /// <summary>
    /// An OpenSSL TLS 1.2 name in IANA's spelling: <c>[ECDHE|DHE]-[RSA|ECDSA]-</c> key exchange (none:
    /// RSA), then AES128/AES256 with GCM, CCM, CCM8 or CBC and its MAC, or CHACHA20-POLY1305.
    /// </summary>
    private static TlsCipherSuite? FromOpenSsl(string name)
    {
        var parts = name.Split('-');
        int i = 0;
        string exchange = "RSA";
        if (parts.Length > 2 && parts[0] is "ECDHE" or "DHE" && parts[1] is "RSA" or "ECDSA")
        {
            exchange = parts[0] + "_" + parts[1];
            i = 2;
        }
        string? body = (parts.Length - i) switch
        {
            2 when parts[i] == "CHACHA20" && parts[i + 1] == "POLY1305" => "CHACHA20_POLY1305_SHA256",
            3 when Aes(parts[i]) is { } aes && parts[i + 1] == "GCM" => $"{aes}_GCM_{parts[i + 2]}",
            2 when Aes(parts[i]) is { } aes && parts[i + 1] == "CCM" => $"{aes}_CCM",
            2 when Aes(parts[i]) is { } aes && parts[i + 1] == "CCM8" => $"{aes}_CCM_8",
            2 when Aes(parts[i]) is { } aes && parts[i + 1].StartsWith("SHA", StringComparison.Ordinal) => $"{aes}_CBC_{parts[i + 1]}",
            _ => null,
        };
        if (body == null) return null;
        return Enum.TryParse($"TLS_{exchange}_WITH_{body}", out TlsCipherSuite suite) && Enum.IsDefined(suite) ? suite : null;
    }

    private static string? Aes(string part) => part switch
    {
        "AES128" => "AES_128",
        "AES256" => "AES_256",
        _ => null,
    };
}
