using System.Text;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// LOLWUT [VERSION v] [arguments] — computer art and the server's version, as Redis 7.2 draws it:
/// version 5 Georg Nees's "Schotter" in Braille characters, version 6 a city skyline in ANSI gray
/// levels, any other (the default, 7.2's own) just the version line.
/// </summary>
/// <remarks>
/// Both drawings use randomness as Redis's do (Schotter's rows from the third on, every building of
/// the skyline); everything else — sizes, limits, the pixel grid, the rounding of each point, the
/// characters and the closing line — is computed as Redis computes it, so the deterministic parts
/// match byte for byte. Redis's arithmetic mixes float and double; the casts below keep its precision.
/// </remarks>
internal static class LolwutCommands
{
    public static void Lolwut(ref CommandContext ctx)
    {
        uint version = 0;
        bool versioned = false;
        int first = 1;
        if (ctx.ArgCount >= 3 && ctx.ArgIs(1, "VERSION"))
        {
            if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long v))
            {
                ctx.Error(RespErrors.NotInteger);
                return;
            }
            version = unchecked((uint)v); // Redis prints it as an unsigned int: "%u.0.0"
            versioned = true;
            first = 3;
        }
        string shown = versioned ? version.ToString(System.Globalization.CultureInfo.InvariantCulture) + ".0.0" : ServerInfo.Version;
        // Redis picks the drawing from the version string's first characters: 5.x (not 5.9) and 4.9
        // draw Schotter, 6.x (not 6.9) and 5.9 the skyline; the rest, 7.2 included, only the version.
        bool five = shown.Length > 2 && ((shown[0] == '5' && shown[1] == '.' && shown[2] != '9') || (shown[0] == '4' && shown[1] == '.' && shown[2] == '9'));
        bool six = shown.Length > 2 && ((shown[0] == '6' && shown[1] == '.' && shown[2] != '9') || (shown[0] == '5' && shown[1] == '.' && shown[2] == '9'));
        if (five) Schotter(ref ctx, first);
        else if (six) Skyline(ref ctx, first);
        else ctx.Reply.Verbatim(Encoding.ASCII.GetBytes("Redis ver. " + ServerInfo.Version + "\n"));
    }

    /// <summary>Parses optional integer argument <paramref name="at"/> into <paramref name="value"/>; false after replying the error.</summary>
    private static bool TryOptional(ref CommandContext ctx, int at, ref long value)
    {
        if (ctx.ArgCount <= at) return true;
        if (RedisNumbers.TryParseInt64(ctx.Arg(at), out value)) return true;
        ctx.Error(RespErrors.NotInteger);
        return false;
    }

    // ---------------------------------------------------------------- version 5: Schotter

    /// <summary>[cols] [squares-per-row] [squares-per-col]: 66, 8 and 12 by default, clamped to 1..1000, 1..200, 1..200.</summary>
    private static void Schotter(ref CommandContext ctx, int first)
    {
        long cols = 66, perRow = 8, perCol = 12;
        if (!TryOptional(ref ctx, first, ref cols) || !TryOptional(ref ctx, first + 1, ref perRow)
            || !TryOptional(ref ctx, first + 2, ref perCol)) return;
        cols = Math.Clamp(cols, 1, 1000);
        perRow = Math.Clamp(perRow, 1, 200);
        perCol = Math.Clamp(perCol, 1, 200);

        var canvas = DrawSchotter((int)cols, (int)perRow, (int)perCol);
        var text = new StringBuilder();
        for (int y = 0; y < canvas.Height; y += 4)
        {
            for (int x = 0; x < canvas.Width; x += 2)
            {
                // One Braille character holds a 2x4 block: dots 1-3 and 7 on the left, 4-6 and 8 on the right.
                int dots = 0;
                if (canvas[x, y] != 0) dots |= 1 << 0;
                if (canvas[x, y + 1] != 0) dots |= 1 << 1;
                if (canvas[x, y + 2] != 0) dots |= 1 << 2;
                if (canvas[x + 1, y] != 0) dots |= 1 << 3;
                if (canvas[x + 1, y + 1] != 0) dots |= 1 << 4;
                if (canvas[x + 1, y + 2] != 0) dots |= 1 << 5;
                if (canvas[x, y + 3] != 0) dots |= 1 << 6;
                if (canvas[x + 1, y + 3] != 0) dots |= 1 << 7;
                text.Append((char)(0x2800 + dots));
            }
            if (y != canvas.Height - 1) text.Append('\n');
        }
        text.Append("\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ").Append(ServerInfo.Version).Append('\n');
        ctx.Reply.Verbatim(Encoding.UTF8.GetBytes(text.ToString()));
    }

    private static Canvas DrawSchotter(int cols, int perRow, int perCol)
    {
        int width = cols * 2;
        int padding = width > 4 ? 2 : 0;
        float side = (float)(width - padding * 2) / perRow;
        int height = (int)(side * perCol + padding * 2);
        var canvas = new Canvas(width, height, 0);
        for (int y = 0; y < perCol; y++)
        {
            for (int x = 0; x < perRow; x++)
            {
                int sx = (int)(x * side + side / 2 + padding);
                int sy = (int)(y * side + side / 2 + padding);
                float angle = 0;
                // From the third row down, each square is turned and moved a little more at random.
                if (y > 1)
                {
                    float r1 = (float)Rand() / RandMax / perCol * y;
                    float r2 = (float)Rand() / RandMax / perCol * y;
                    float r3 = (float)Rand() / RandMax / perCol * y;
                    if (Rand() % 2 != 0) r1 = -r1;
                    if (Rand() % 2 != 0) r2 = -r2;
                    if (Rand() % 2 != 0) r3 = -r3;
                    angle = r1;
                    sx = (int)(sx + r2 * side / 3); // C's int += float: the sum is truncated
                    sy = (int)(sy + r3 * side / 3);
                }
                DrawSquare(canvas, sx, sy, side, angle);
            }
        }
        return canvas;
    }

    /// <summary>A square of side <paramref name="size"/> centred on (x, y), turned by <paramref name="angle"/> radians.</summary>
    private static void DrawSquare(Canvas canvas, int x, int y, float size, float angle)
    {
        Span<int> px = stackalloc int[4], py = stackalloc int[4];
        // The corners lie on a circle: the side over sqrt(2) is its radius.
        size = (float)(size / 1.4142135623);
        size = (float)RoundC(size);
        float k = (float)(Math.PI / 4 + angle);
        for (int j = 0; j < 4; j++)
        {
            px[j] = (int)RoundC(Math.Sin(k) * size + x);
            py[j] = (int)RoundC(Math.Cos(k) * size + y);
            k = (float)(k + Math.PI / 2);
        }
        for (int j = 0; j < 4; j++) DrawLine(canvas, px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4], 1);
    }

    /// <summary>Bresenham's line, both ends included.</summary>
    private static void DrawLine(Canvas canvas, int x1, int y1, int x2, int y2, byte color)
    {
        int dx = Math.Abs(x2 - x1), dy = Math.Abs(y2 - y1);
        int sx = x1 < x2 ? 1 : -1, sy = y1 < y2 ? 1 : -1;
        int err = dx - dy;
        while (true)
        {
            canvas.Set(x1, y1, color);
            if (x1 == x2 && y1 == y2) break;
            int e2 = err * 2;
            if (e2 > -dy)
            {
                err -= dy;
                x1 += sx;
            }
            if (e2 < dx)
            {
                err += dx;
                y1 += sy;
            }
        }
    }

    // ---------------------------------------------------------------- version 6: the skyline

    /// <summary>[cols] [rows]: 80 and 20 by default, each clamped to 1..1000.</summary>
    private static void Skyline(ref CommandContext ctx, int first)
    {
        long cols = 80, rows = 20;
        if (!TryOptional(ref ctx, first, ref cols) || !TryOptional(ref ctx, first + 1, ref rows)) return;
        cols = Math.Clamp(cols, 1, 1000);
        rows = Math.Clamp(rows, 1, 1000);

        var canvas = new Canvas((int)cols, (int)rows, 3);
        DrawSkyline(canvas);
        var text = new StringBuilder();
        for (int y = 0; y < canvas.Height; y++)
        {
            for (int x = 0; x < canvas.Width; x++)
            {
                // Foreground and background both set, for the same look on every terminal.
                string code = canvas[x, y] switch
                {
                    1 => "0;90;100m",
                    2 => "0;37;47m",
                    3 => "0;97;107m",
                    _ => "0;30;40m",
                };
                text.Append("\u001b[").Append(code).Append(" \u001b[0m");
            }
            if (y != canvas.Height - 1) text.Append('\n');
        }
        text.Append("\nDedicated to the 8 bit game developers of past and present.\n")
            .Append("Original 8 bit image from Plaguemon by hikikomori. Redis ver. ").Append(ServerInfo.Version).Append('\n');
        ctx.Reply.Verbatim(Encoding.ASCII.GetBytes(text.ToString()));
    }

    /// <summary>Two rows of plain gray buildings behind (the lighter ones furthest), then black ones with windows.</summary>
    private static void DrawSkyline(Canvas canvas)
    {
        for (byte color = 2; color >= 1; color--)
        {
            for (int offset = -10; offset < canvas.Width;)
            {
                offset += Rand() % 8;
                int width = 10 + Rand() % 9;
                int height = color == 2
                    ? canvas.Height / 2 + Rand() % canvas.Height / 2
                    : canvas.Height / 2 + Rand() % canvas.Height / 3;
                DrawBuilding(canvas, offset, width, height, windows: false, color);
                offset += color == 2 ? width / 2 : width + 1;
            }
        }
        for (int offset = -10; offset < canvas.Width;)
        {
            offset += Rand() % 8;
            int width = 5 + Rand() % 14;
            if (width % 4 != 0) width += width % 3;
            int height = canvas.Height / 3 + Rand() % canvas.Height / 2;
            DrawBuilding(canvas, offset, width, height, windows: true, 0);
            offset += width + 5;
        }
    }

    /// <summary>A building standing on the bottom row; its roof is two pixels narrower each side; windows two pixels wide, lit at random.</summary>
    private static void DrawBuilding(Canvas canvas, int xoff, int width, int height, bool windows, byte color)
    {
        int bottom = canvas.Height - 1;
        int top = bottom - height + 1;
        for (int y = bottom; y >= top; y--)
        {
            for (int x = xoff; x < xoff + width; x++)
            {
                if (y == top && (x <= xoff + 1 || x >= xoff + width - 2)) continue;
                byte c = color;
                if (windows && x > xoff + 1 && x < xoff + width - 2 && y > top + 1 && y < bottom - 1)
                {
                    int relx = x - (xoff + 1), rely = y - (top + 1);
                    if (relx / 2 % 2 != 0 && rely % 2 != 0)
                    {
                        do c = (byte)(1 + Rand() % 2);
                        while (c == color);
                        if (relx % 2 != 0) c = canvas[x - 1, y];
                    }
                }
                canvas.Set(x, y, c);
            }
        }
    }

    // ---------------------------------------------------------------- shared

    /// <summary>C's rand(): 0..RAND_MAX (glibc's 2^31-1).</summary>
    private const float RandMax = int.MaxValue;

    private static int Rand() => Random.Shared.Next(int.MaxValue);

    /// <summary>C's round(): halves away from zero.</summary>
    private static double RoundC(double v) => Math.Round(v, MidpointRounding.AwayFromZero);

    /// <summary>A grid of pixel colours; reads outside it are 0 and writes outside it are dropped.</summary>
    private sealed class Canvas(int width, int height, byte background)
    {
        private readonly byte[] _pixels = Enumerable.Repeat(background, width * height).ToArray();

        public int Width { get; } = width;
        public int Height { get; } = height;

        public byte this[int x, int y] => x < 0 || x >= Width || y < 0 || y >= Height ? (byte)0 : _pixels[x + y * Width];

        public void Set(int x, int y, byte color)
        {
            if (x >= 0 && x < Width && y >= 0 && y < Height) _pixels[x + y * Width] = color;
        }
    }
}
