namespace RedisClone.Server;

/// <summary>
/// The start-up picture, shown where Redis shows its logo: on a terminal (no logfile, standard output
/// a tty) or with <c>always-show-logo yes</c>. The picture is our own; the facts in it are on lines
/// as Redis's logo has them, since tools that start a server read them from its log:
/// <c>Running in standalone mode</c>, <c>Port: 6379</c>, <c>PID: 1234</c>.
/// Elsewhere Redis writes one line instead, <c>Running mode=standalone, port=6379.</c>.
/// </summary>
internal static class StartupBanner
{
    /// <summary>Redis's rule (redisAsciiArt): the picture, or the one line.</summary>
    public static bool ShowPicture(bool alwaysShowLogo, bool loggingToTerminal) => alwaysShowLogo || loggingToTerminal;

    /// <summary>The picture with the facts filled in; starts and ends with a line break, as it is logged raw.</summary>
    public static string Picture(string mode, int port, int pid)
    {
        string[] facts =
        [
            $"RedisClone {ServerInfo.Version} (.NET {Environment.Version}) {IntPtr.Size * 8} bit",
            "",
            $"Running in {mode} mode",
            $"Port: {port}",
            $"PID: {pid}",
            "",
            "A Redis-compatible server in C#",
        ];
        string[] art =
        [
            "     _________     ",
            "    /  _____  \\    ",
            "   /  / ___ \\  \\   ",
            "  |  | |___) | |   ",
            "  |  |  _  _/  |   ",
            "   \\  \\| \\ \\  /    ",
            "    \\__\\_|\\_\\/     ",
        ];
        var text = new System.Text.StringBuilder("\n");
        for (int i = 0; i < art.Length; i++)
            text.Append(art[i]).Append("   ").Append(facts[i]).Append('\n');
        return text.Append('\n').ToString();
    }
}
