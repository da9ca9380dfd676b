using System.Globalization;
using System.Text;

namespace RedisClone.Persistence;

/// <summary>
/// Redis 7's multi-part AOF layout: a directory (<c>appenddirname</c>) holding a base file (an RDB
/// preamble, or commands), incremental files of commands, and a manifest naming them in order, one
/// line per file: <c>file NAME seq N type b|h|i</c> (base, history, incremental).
/// </summary>
internal sealed class AofManifest
{
    /// <summary>One file of the manifest.</summary>
    internal sealed record Entry(string Name, long Seq, char Type);

    public Entry? Base { get; private set; }
    public List<Entry> History { get; } = [];
    public List<Entry> Incremental { get; } = [];
    public long BaseSeq { get; private set; }
    public long IncrSeq { get; private set; }

    public static string ManifestName(string appendFilename) => appendFilename + ".manifest";

    /// <summary>Reads the manifest at <paramref name="path"/>; throws <see cref="RdbLoadException"/> on a malformed line.</summary>
    public static AofManifest Load(string path)
    {
        var manifest = new AofManifest();
        int lineNumber = 0;
        foreach (string raw in File.ReadAllLines(path))
        {
            lineNumber++;
            string line = raw.Trim();
            if (line.Length == 0 || line[0] == '#') continue;
            var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            string? name = null, type = null;
            long seq = -1;
            for (int i = 0; i + 1 < parts.Length; i += 2)
            {
                switch (parts[i])
                {
                    case "file": name = parts[i + 1]; break;
                    case "seq": long.TryParse(parts[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out seq); break;
                    case "type": type = parts[i + 1]; break;
                }
            }
            if (name == null || seq < 0 || type is not ("b" or "h" or "i") || name.Contains('/'))
                throw new RdbLoadException($"Invalid AOF manifest file format (line {lineNumber})", lineNumber);
            var entry = new Entry(name, seq, type[0]);
            switch (entry.Type)
            {
                case 'b':
                    if (manifest.Base != null) throw new RdbLoadException("Found duplicate base file information", lineNumber);
                    manifest.Base = entry;
                    manifest.BaseSeq = seq;
                    break;
                case 'h':
                    manifest.History.Add(entry);
                    break;
                default:
                    if (seq <= manifest.IncrSeq) throw new RdbLoadException("Found a non-monotonic sequence number", lineNumber);
                    manifest.Incremental.Add(entry);
                    manifest.IncrSeq = seq;
                    break;
            }
        }
        return manifest;
    }

    /// <summary>A new base file (the previous one, if any, becomes history).</summary>
    public Entry NewBase(string appendFilename, bool rdbPreamble)
    {
        if (Base != null) History.Add(Base with { Type = 'h' });
        BaseSeq++;
        Base = new Entry($"{appendFilename}.{BaseSeq}.base.{(rdbPreamble ? "rdb" : "aof")}", BaseSeq, 'b');
        return Base;
    }

    /// <summary>The incremental file new writes go to: the last one, or a new one when there is none.</summary>
    public Entry LastOrNewIncremental(string appendFilename)
    {
        if (Incremental.Count > 0) return Incremental[^1];
        IncrSeq++;
        var entry = new Entry($"{appendFilename}.{IncrSeq}.incr.aof", IncrSeq, 'i');
        Incremental.Add(entry);
        return entry;
    }

    /// <summary>A new incremental file after the others (a rewrite starts).</summary>
    public Entry NewIncremental(string appendFilename)
    {
        IncrSeq++;
        var entry = new Entry($"{appendFilename}.{IncrSeq}.incr.aof", IncrSeq, 'i');
        Incremental.Add(entry);
        return entry;
    }

    /// <summary>Removes the incremental files before <paramref name="seq"/> (a rewrite's base covers them) and returns them.</summary>
    public List<Entry> DropIncrementalBefore(long seq)
    {
        var dropped = Incremental.Where(e => e.Seq < seq).ToList();
        Incremental.RemoveAll(e => e.Seq < seq);
        return dropped;
    }

    /// <summary>Writes the manifest to a temporary file, fsyncs it and renames it into place.</summary>
    public void Save(string directory, string appendFilename)
    {
        var text = new StringBuilder();
        if (Base != null) Append(text, Base);
        foreach (var h in History) Append(text, h);
        foreach (var i in Incremental) Append(text, i);
        string path = Path.Combine(directory, ManifestName(appendFilename));
        string temp = Path.Combine(directory, "temp-" + ManifestName(appendFilename));
        using (var file = new FileStream(temp, FileMode.Create, FileAccess.Write))
        {
            file.Write(Encoding.UTF8.GetBytes(text.ToString()));
            file.Flush(flushToDisk: true);
        }
        File.Move(temp, path, overwrite: true);
    }

    private static void Append(StringBuilder text, Entry e)
        => text.Append("file ").Append(e.Name).Append(" seq ").Append(e.Seq.ToString(CultureInfo.InvariantCulture))
            .Append(" type ").Append(e.Type).Append('\n');
}
