namespace RedisClone.Scripting;

/// <summary>How FUNCTION RESTORE treats the libraries already there.</summary>
internal enum RestorePolicy
{
    /// <summary>Add the payload's libraries; a library or function name already in use aborts.</summary>
    Append,
    /// <summary>Add them, replacing libraries of the same name; a function name used by another library aborts.</summary>
    Replace,
    /// <summary>Drop every library first.</summary>
    Flush,
}
