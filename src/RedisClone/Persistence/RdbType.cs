namespace RedisClone.Persistence;

/// <summary>
/// The value type bytes of the RDB format (rdb.h's RDB_TYPE_*): which type a value is and how its
/// body is laid out. The numbers are fixed by the file format.
/// </summary>
internal static class RdbType
{
    public const byte String = 0;
    public const byte List = 1;
    public const byte Set = 2;
    public const byte Zset = 3;
    public const byte Hash = 4;
    /// <summary>Sorted set with binary (8-byte) scores.</summary>
    public const byte Zset2 = 5;
    public const byte ModulePreGa = 6;
    public const byte Module2 = 7;
    public const byte HashZipmap = 9;
    public const byte ListZiplist = 10;
    public const byte SetIntset = 11;
    public const byte ZsetZiplist = 12;
    public const byte HashZiplist = 13;
    public const byte ListQuicklist = 14;
    public const byte StreamListpacks = 15;
    public const byte HashListpack = 16;
    public const byte ZsetListpack = 17;
    public const byte ListQuicklist2 = 18;
    /// <summary>Streams with first ID, greatest deleted ID, entries-added and groups' entries-read (7.0).</summary>
    public const byte StreamListpacks2 = 19;
    /// <summary>Small sets of strings as a listpack (7.2; RDB version 11).</summary>
    public const byte SetListpack = 20;
    /// <summary>Streams whose consumers carry an active time too (7.2; RDB version 11).</summary>
    public const byte StreamListpacks3 = 21;
    /// <summary>Hash with field TTLs, each absolute, no minimum first (7.4 release candidates; read only).</summary>
    public const byte HashMetadataPreGa = 22;
    /// <summary>Listpack of field-value-TTL triplets, no minimum first (7.4 release candidates; read only).</summary>
    public const byte HashListpackExPreGa = 23;
    /// <summary>
    /// Hash with field TTLs (7.4 GA and later, RDB version 12): the soonest TTL as 8 bytes, the
    /// field count, then per field its TTL as a length (0: none; else TTL - soonest + 1), the field
    /// and the value.
    /// </summary>
    public const byte HashMetadata = 24;
    /// <summary>
    /// Small hash with field TTLs (7.4 GA and later, RDB version 12): the soonest TTL as 8 bytes (0
    /// when none), then a listpack of field-value-TTL triplets (TTL 0: none) ordered by TTL.
    /// </summary>
    public const byte HashListpackEx = 25;

    /// <summary>
    /// The RDB version this server writes in files and DUMP payloads: 10, what Redis 7.0 writes and
    /// the newest it loads, so files and payloads move to a 7.0 server as well as a 7.2 one. (7.2
    /// writes 11, whose only additions are the listpack set and the stream type with consumers'
    /// active times: here such sets are written as plain sets and streams as type 19.)
    /// </summary>
    public const int WriteVersion = 10;

    /// <summary>
    /// The version written instead when the data holds a hash with field TTLs, whose types (24, 25)
    /// only Redis 7.4 and later read: as Redis 8.2 writes, so such a file or payload still moves to
    /// Redis 8, and a 7.x server refuses it by its version rather than by a type it does not know.
    /// </summary>
    public const int FieldTtlVersion = 12;

    /// <summary>The version for a DUMP payload of <paramref name="value"/>.</summary>
    public static int VersionFor(object value) => value is Storage.RedisHash { HasFieldTtls: true } ? FieldTtlVersion : WriteVersion;

    /// <summary>The newest version this server reads (Redis 7.2's).</summary>
    public const int ReadVersion = Common.RdbString.Version;

    /// <summary>Quicklist node containers (QUICKLIST_NODE_CONTAINER_PLAIN / _PACKED).</summary>
    public const int ContainerPlain = 1, ContainerPacked = 2;
}
