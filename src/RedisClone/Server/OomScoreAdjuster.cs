using System.Globalization;

namespace RedisClone.Server;

/// <summary>
/// oom-score-adj and oom-score-adj-values: how willing the Linux OOM killer is to pick this
/// process, written to <c>/proc/self/oom_score_adj</c> as Redis's setOOMScoreAdj writes it. The
/// value before the first adjustment is remembered: <c>yes</c> (relative) adds the process class's
/// value to it, <c>absolute</c> uses the value as it is, and going back to <c>no</c> restores it.
/// </summary>
/// <remarks>
/// The score belongs to the process, so this state is the process's too: servers embedded in one
/// process (tests) share it, and the last one to set it wins, as two Redis configurations applied to
/// one process would. There are no fork children here, so the bgchild value is kept but never used.
/// </remarks>
internal static class OomScoreAdjuster
{
    private const string ProcFile = "/proc/self/oom_score_adj";

    /// <summary>Indexes into oom-score-adj-values.</summary>
    public const int Master = 0, Replica = 1;

    private static readonly object Gate = new();
    private static bool s_adjusted;
    private static int s_base;

    /// <summary>
    /// Applies <paramref name="mode"/> ("no", "yes", "absolute") with <paramref name="values"/>
    /// ("master replica bgchild") for <paramref name="processClass"/>; false, with Redis's warning
    /// logged, when the file cannot be read or written (not Linux, or lowering the score without the
    /// privilege to).
    /// </summary>
    public static bool TryApply(string mode, string values, int processClass, ServerLog log)
    {
        lock (Gate)
        {
            int value;
            if (mode != "no")
            {
                if (!s_adjusted)
                {
                    try
                    {
                        string text = File.ReadAllText(ProcFile).Trim();
                        s_base = int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int b) ? b : 0;
                    }
                    catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or NotSupportedException)
                    {
                        log.Warning($"Unable to read oom_score_adj: {ex.Message}");
                        return false;
                    }
                    s_adjusted = true;
                }
                value = int.Parse(values.Split(' ')[processClass], CultureInfo.InvariantCulture);
                if (mode == "yes") value += s_base; // relative reads back as yes
                value = Math.Clamp(value, -1000, 1000);
            }
            else if (s_adjusted)
            {
                s_adjusted = false;
                value = s_base;
            }
            else
            {
                return true;
            }
            try
            {
                File.WriteAllText(ProcFile, value.ToString(CultureInfo.InvariantCulture) + "\n");
                return true;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or NotSupportedException)
            {
                log.Warning($"Unable to write oom_score_adj: {ex.Message}");
                return false;
            }
        }
    }
}
