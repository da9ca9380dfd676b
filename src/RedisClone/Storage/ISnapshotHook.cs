namespace RedisClone.Storage;

/// <summary>
/// A point-in-time snapshot being written while the dataset keeps changing (BGSAVE without fork).
/// The databases call it, under their shard's gate, before anything happens to a key that the
/// snapshot may not have written yet, so it can write the key as it still is.
/// </summary>
internal interface ISnapshotHook
{
    /// <summary>The key in <paramref name="slot"/> is about to change or be removed.</summary>
    void BeforeChange(Database db, int slot);

    /// <summary>A key was just created in <paramref name="slot"/>: it is not part of the snapshot.</summary>
    void Added(Database db, int slot);

    /// <summary>Every key of <paramref name="db"/> is about to go, or to trade places with another database's.</summary>
    void BeforeClear(Database db);
}
