namespace RedisClone.Persistence;

/// <summary>
/// Saving an RDB file failed at a step Redis names in its log (opening the temporary file, moving it
/// over the target); the message is Redis's line for it. Other I/O errors while saving are logged
/// as Redis's "Write error saving DB on disk".
/// </summary>
internal sealed class RdbSaveException(string message, Exception inner) : IOException(message, inner);
