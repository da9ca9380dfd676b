using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The bitmap family (handlers in <see cref="BitmapCommands"/>): strings read and written bit by bit.</summary>
    private static IEnumerable<CommandDef> BitmapRows() =>
    [
        new("setbit", 4, Write | DenyOom, BitmapCommands.SetBit, keys: "RW access update", group: "bitmap")
        {
            Summary = "Sets or clears one bit of a string, growing it with zero bytes when needed; returns the bit's old value.",
            Since = "2.2.0", Complexity = "O(1)", Args = "key:key offset:integer value:integer",
        },
        new("getbit", 3, ReadOnly | Fast, BitmapCommands.GetBit, keys: "RO access", group: "bitmap")
        {
            Summary = "Returns one bit of a string (0 past its end or for a missing key).",
            Since = "2.2.0", Complexity = "O(1)", Args = "key:key offset:integer",
        },
        new("bitop", -4, Write | DenyOom, BitmapCommands.BitOp, keys: "OW update i=2; RO access i=3 r=-1,1,0", group: "bitmap")
        {
            Summary = "Combines strings with AND, OR, XOR, DIFF, DIFF1, ANDOR or ONE (or inverts one with NOT) into a destination key; returns its size.",
            Since = "2.6.0", Complexity = "O(N)", Args = "operation:string destkey:key key:key...",
        },
        new("bitfield", -2, Write | DenyOom, BitmapCommands.BitField,
            keys: "RW access update variable_flags -- This command allows both access and modification of the key", group: "bitmap")
        {
            Summary = "Reads, writes and increments integer fields of any width at any bit offset of a string.",
            Since = "3.2.0", Complexity = "O(1) for each subcommand specified",
            Args = "key:key [operation(GET=encoding_offset{encoding:string offset:integer} | "
                + "write{[OVERFLOW=wrap_sat_fail(WRAP | SAT | FAIL)] write_operation(SET=encoding_offset_value{encoding:string offset:integer value:integer} | "
                + "INCRBY=encoding_offset_increment{encoding:string offset:integer increment:integer})})...]",
            VarFlags = BitFieldKeyFlags,
        },
        new("bitfield_ro", -2, ReadOnly | Fast, BitmapCommands.BitFieldRo, keys: "RO access", group: "bitmap")
        {
            Summary = "Reads integer fields of a string (BITFIELD limited to GET).",
            Since = "6.0.0", Complexity = "O(1) for each subcommand specified",
            Args = "key:key [GET=encoding_offset{encoding:string offset:integer}...+]",
        },
        new("bitcount", -2, ReadOnly, BitmapCommands.BitCount, keys: "RO access", group: "bitmap")
        {
            Summary = "Counts the set bits of a string, or of a range of its bytes or bits.",
            Since = "2.6.0", Complexity = "O(N)",
            Args = "key:key [index{start:integer end:integer [index_unit(BYTE | BIT)@7.0.0]}]",
            History = "7.0.0: Added the `BYTE|BIT` option.",
        },
        new("bitpos", -3, ReadOnly, BitmapCommands.BitPos, keys: "RO access", group: "bitmap")
        {
            Summary = "Returns the index of the first bit set to 1, or to 0, in a string or a range of it.",
            Since = "2.8.7", Complexity = "O(N)",
            Args = "key:key bit:integer [index{start:integer [end_index{end:integer [index_unit(BYTE | BIT)@7.0.0]}]}]",
            History = "7.0.0: Added the `BYTE|BIT` option.",
        },
    ];

    /// <summary>BITFIELD: only reads when every operation is a GET (Redis's bitfieldGetKeys), else read and write.</summary>
    private static KeySpecFlags BitFieldKeyFlags(byte[][] args, int keyPosition, KeySpecFlags specFlags)
    {
        const KeySpecFlags ReadWrite = KeySpecFlags.RW | KeySpecFlags.Access | KeySpecFlags.Update;
        for (int i = 2; i < args.Length; i++)
        {
            int remaining = args.Length - i - 1;
            var word = args[i];
            if (System.Text.Ascii.EqualsIgnoreCase(word, "GET"u8) && remaining >= 2) i += 2;
            else if (System.Text.Ascii.EqualsIgnoreCase(word, "OVERFLOW"u8) && remaining >= 1) i += 1;
            else return ReadWrite; // SET, INCRBY, or a syntax error: assume a write, as Redis
        }
        return KeySpecFlags.RO | KeySpecFlags.Access;
    }
}
