using System.Diagnostics;
using System.Text;

namespace RedisClone.Commands;

/// <summary>
/// The reply of a container's HELP subcommand (CLIENT HELP, CONFIG HELP, DEBUG HELP...): an array
/// of simple strings in Redis's layout. It opens with
/// <c>NAME &lt;subcommand&gt; [&lt;arg&gt; [value] [opt] ...]. Subcommands are:</c>, then each
/// subcommand's syntax line (unindented) followed by its description (indented), and closes with
/// the HELP entry.
/// </summary>
/// <remarks>
/// <para>
/// What a client can rely on is Redis's: the first line, the syntax lines and their order, the
/// closing HELP line. The descriptions are written for this server, in our own words, and say what
/// it does (an option that is only accepted says so). A subcommand Redis has and we do not is left
/// out, so that HELP never offers what would be answered as an unknown subcommand.
/// </para>
/// <para>
/// The reply is the same for every caller and both protocols (simple strings are the same in
/// RESP2 and RESP3), so it is encoded once and written as it is.
/// </para>
/// </remarks>
internal sealed class HelpReply
{
    /// <summary>Redis's first line, after the container's name in capitals.</summary>
    private const string Header = " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:";

    private readonly byte[] _encoded;

    /// <param name="container">The command's name as Redis prints it, in capitals ("CLIENT").</param>
    /// <param name="entries">
    /// Each subcommand's syntax line, as Redis writes it, followed by one or more description lines
    /// indented by four spaces; HELP itself is added at the end.
    /// </param>
    public HelpReply(string container, params string[] entries)
    {
        Debug.Assert(entries.Length > 0 && !entries[0].StartsWith(' '), "the first entry is a syntax line");
        string[] lines = [container + Header, .. entries, "HELP", "    List these subcommands and what each one does."];
        var text = new StringBuilder($"*{lines.Length}\r\n");
        foreach (string line in lines)
        {
            Debug.Assert(!line.Contains('\r') && !line.Contains('\n') && Ascii.IsValid(line), line);
            text.Append('+').Append(line).Append("\r\n");
        }
        _encoded = Encoding.ASCII.GetBytes(text.ToString());
    }

    /// <summary>Writes the whole reply.</summary>
    public void Write(ref CommandContext ctx) => ctx.Reply.Raw(_encoded);
}
