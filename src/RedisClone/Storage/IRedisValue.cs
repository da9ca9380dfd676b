namespace RedisClone.Storage;

/// <summary>
/// What a value class other than a string (list, hash, set, sorted set...) tells the keyspace
/// commands about itself: TYPE, SCAN's TYPE filter, OBJECT ENCODING and COPY go through this, so
/// adding a data type needs no change to the keyspace family.
/// </summary>
internal interface IRedisValue
{
    /// <summary>TYPE's reply, lower case: "list", "hash", "set", "zset", "stream".</summary>
    string TypeName { get; }

    /// <summary>OBJECT ENCODING's reply for the value as it is now: "listpack", "quicklist", "hashtable"...</summary>
    string Encoding { get; }

    /// <summary>
    /// Redis's lazyfreeGetFreeEffort: about how many allocations freeing the value takes (nodes of
    /// a quicklist, entries of a hashtable or skiplist, a stream's nodes and groups); 1 for compact
    /// encodings. UNLINK and the lazyfree-lazy-* deletes count a value above 64 as freed lazily
    /// (INFO's lazyfreed_objects).
    /// </summary>
    long FreeEffort => 1;

    /// <summary>An independent copy: COPY must leave two keys that share no mutable state.</summary>
    IRedisValue DeepCopy();
}
