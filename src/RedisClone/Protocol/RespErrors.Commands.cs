namespace RedisClone.Protocol;

/// <summary>The error texts of one command family each, grouped by family.</summary>
internal static partial class RespErrors
{
    // "invalid expire time in '%s' command": one fixed line per command, as Redis names the command.
    public static ReadOnlySpan<byte> InvalidExpire => "-ERR invalid expire time in 'set' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireSetEx => "-ERR invalid expire time in 'setex' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpirePSetEx => "-ERR invalid expire time in 'psetex' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireGetEx => "-ERR invalid expire time in 'getex' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireExpire => "-ERR invalid expire time in 'expire' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpirePExpire => "-ERR invalid expire time in 'pexpire' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireExpireAt => "-ERR invalid expire time in 'expireat' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpirePExpireAt => "-ERR invalid expire time in 'pexpireat' command\r\n"u8;

    public static ReadOnlySpan<byte> InvalidExpireHExpire => "-ERR invalid expire time in 'hexpire' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireHPExpire => "-ERR invalid expire time in 'hpexpire' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireHExpireAt => "-ERR invalid expire time in 'hexpireat' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireHPExpireAt => "-ERR invalid expire time in 'hpexpireat' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireHGetEx => "-ERR invalid expire time in 'hgetex' command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidExpireHSetEx => "-ERR invalid expire time in 'hsetex' command\r\n"u8;

    // Hash-field expiry (Redis 8.2's t_hash.c texts; some differ from 7.4's).
    public static ReadOnlySpan<byte> HashFieldsMissing => "-ERR Mandatory argument FIELDS is missing or not at the right position\r\n"u8;
    public static ReadOnlySpan<byte> HashExpireNumFields => "-ERR Parameter `numFields` should be greater than 0\r\n"u8;
    public static ReadOnlySpan<byte> HashNumFields => "-ERR Number of fields must be a positive integer\r\n"u8;
    public static ReadOnlySpan<byte> HashNumFieldsMismatch => "-ERR The `numfields` parameter must match the number of arguments\r\n"u8;
    public static ReadOnlySpan<byte> HashExpireNegative => "-ERR invalid expire time, must be >= 0\r\n"u8;
    public static ReadOnlySpan<byte> HSetExNumFields => "-ERR invalid number of fields\r\n"u8;
    public static ReadOnlySpan<byte> HSetExMissingExpire => "-ERR missing expire time\r\n"u8;
    public static ReadOnlySpan<byte> HSetExConditions => "-ERR Only one of FXX or FNX arguments can be specified\r\n"u8;
    public static ReadOnlySpan<byte> HSetExExpirations => "-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n"u8;
    public static ReadOnlySpan<byte> WrongArityHSetEx => "-ERR wrong number of arguments for 'hsetex' command\r\n"u8;
    public static ReadOnlySpan<byte> WrongArityHGetEx => "-ERR wrong number of arguments for 'hgetex' command\r\n"u8;
    public static ReadOnlySpan<byte> NoValuesOnlyHScan => "-ERR NOVALUES option can only be used in HSCAN\r\n"u8;

    /// <summary>HSETEX's text for an argument it does not know.</summary>
    public static string HSetExUnknownArgument(string arg) => "ERR unknown argument: " + arg;

    // WrongArity's text, fixed, for commands that check their pairs after the table's arity check.
    public static ReadOnlySpan<byte> WrongArityMSet => "-ERR wrong number of arguments for 'mset' command\r\n"u8;
    public static ReadOnlySpan<byte> WrongArityMSetNx => "-ERR wrong number of arguments for 'msetnx' command\r\n"u8;
    public static ReadOnlySpan<byte> WrongArityHSet => "-ERR wrong number of arguments for 'hset' command\r\n"u8;
    public static ReadOnlySpan<byte> WrongArityHMSet => "-ERR wrong number of arguments for 'hmset' command\r\n"u8;

    // Strings. DECRBY of LONG_MIN has its own text; other overflows are the shared Overflow.
    public static ReadOnlySpan<byte> DecrementOverflow => "-ERR decrement would overflow\r\n"u8;
    public static ReadOnlySpan<byte> LcsNotStrings => "-ERR The specified keys must contain string values\r\n"u8;
    public static ReadOnlySpan<byte> LcsLenAndIdx => "-ERR If you want both the length and indexes, please just use IDX.\r\n"u8;
    public static ReadOnlySpan<byte> LcsOverLimit => "-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n"u8;
    public static ReadOnlySpan<byte> LcsNoMemory => "-ERR Insufficient memory, failed allocating transient memory for LCS\r\n"u8;

    // Keys: EXPIRE's options, SWAPDB, OBJECT IDLETIME/FREQ.
    public static ReadOnlySpan<byte> ExpireNxConflict => "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"u8;
    public static ReadOnlySpan<byte> ExpireGtLtConflict => "-ERR GT and LT options at the same time are not compatible\r\n"u8;
    public static ReadOnlySpan<byte> InvalidFirstDb => "-ERR invalid first DB index\r\n"u8;
    public static ReadOnlySpan<byte> InvalidSecondDb => "-ERR invalid second DB index\r\n"u8;
    public static ReadOnlySpan<byte> LfuPolicySelected =>
        "-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n"u8;
    public static ReadOnlySpan<byte> LfuPolicyNotSelected =>
        "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n"u8;

    // MIGRATE. The I/O errors are Redis's texts word for word ("connecting to the client" included).
    public static ReadOnlySpan<byte> MigrateKeysNeedEmptyKey =>
        "-ERR When using MIGRATE KEYS option, the key argument must be set to the empty string\r\n"u8;
    public const string MigrateConnect = "IOERR error or timeout connecting to the client";
    public const string MigrateWrite = "IOERR error or timeout writing to target instance";
    public const string MigrateRead = "IOERR error or timeout reading to target instance";
    public const string MigrateTargetError = "ERR Target instance replied with error: ";

    public static string UnsupportedOption(ReadOnlySpan<byte> option) => "ERR Unsupported option " + Latin(option);

    // Hashes. HINCRBYFLOAT's increment is "value is NaN or Infinity"; its result is the shared NanOrInfinity.
    public static ReadOnlySpan<byte> HashValueNotInteger => "-ERR hash value is not an integer\r\n"u8;
    public static ReadOnlySpan<byte> HashValueNotFloat => "-ERR hash value is not a float\r\n"u8;
    public static ReadOnlySpan<byte> ValueNanOrInfinity => "-ERR value is NaN or Infinity\r\n"u8;

    // Lists: LINDEX/LSET, LPOS's options.
    public static ReadOnlySpan<byte> IndexOutOfRange => "-ERR index out of range\r\n"u8;
    public static ReadOnlySpan<byte> RankZero =>
        "-ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list\r\n"u8;
    public static ReadOnlySpan<byte> CountNegative => "-ERR COUNT can't be negative\r\n"u8;
    public static ReadOnlySpan<byte> MaxLenNegative => "-ERR MAXLEN can't be negative\r\n"u8;

    // Sets (SINTERCARD) and scripts (EVAL's numkeys).
    public static ReadOnlySpan<byte> NumKeysTooMany => "-ERR Number of keys can't be greater than number of args\r\n"u8;

    // Geo.
    public static ReadOnlySpan<byte> GeoMemberNotDecodable => "-ERR could not decode requested zset member\r\n"u8;
    public static ReadOnlySpan<byte> GeoUnsupportedUnit => "-ERR unsupported unit provided. please use M, KM, FT, MI\r\n"u8;
    public static ReadOnlySpan<byte> GeoNeedNumericRadius => "-ERR need numeric radius\r\n"u8;
    public static ReadOnlySpan<byte> GeoRadiusNegative => "-ERR radius cannot be negative\r\n"u8;
    public static ReadOnlySpan<byte> GeoNeedNumericWidth => "-ERR need numeric width\r\n"u8;
    public static ReadOnlySpan<byte> GeoNeedNumericHeight => "-ERR need numeric height\r\n"u8;
    public static ReadOnlySpan<byte> GeoBoxNegative => "-ERR height or width cannot be negative\r\n"u8;
    public static ReadOnlySpan<byte> GeoCountNotPositive => "-ERR COUNT must be > 0\r\n"u8;
    public static ReadOnlySpan<byte> GeoAnyWithoutCount => "-ERR the ANY argument requires COUNT argument\r\n"u8;
    public static ReadOnlySpan<byte> GeoRadiusStoreWith => "-ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"u8;
    public static ReadOnlySpan<byte> GeoSearchStoreWith => "-ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"u8;

    // Bitmaps.
    public static ReadOnlySpan<byte> BitOffsetNotInteger => "-ERR bit offset is not an integer or out of range\r\n"u8;
    public static ReadOnlySpan<byte> BitNotInteger => "-ERR bit is not an integer or out of range\r\n"u8;
    public static ReadOnlySpan<byte> BitArgumentNotBit => "-ERR The bit argument must be 1 or 0.\r\n"u8;
    public static ReadOnlySpan<byte> BitOpNotSingleSource => "-ERR BITOP NOT must be called with a single source key.\r\n"u8;

    /// <summary>BITOP DIFF, DIFF1 or ANDOR with one source (Redis 8.2; the operation's name in capitals).</summary>
    public static string BitOpTwoSources(string operation) => $"ERR BITOP {operation} must be called with at least two source keys.";
    public static ReadOnlySpan<byte> BitFieldType => "-ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.\r\n"u8;
    public static ReadOnlySpan<byte> BitFieldOverflowType => "-ERR Invalid OVERFLOW type specified\r\n"u8;
    public static ReadOnlySpan<byte> BitFieldRoGetOnly => "-ERR BITFIELD_RO only supports the GET subcommand\r\n"u8;

    // HyperLogLog (hyperloglog.c): a string that is not an HLL, and an HLL whose body is corrupt.
    public static ReadOnlySpan<byte> HllNotValid => "-WRONGTYPE Key is not a valid HyperLogLog string value.\r\n"u8;
    public static ReadOnlySpan<byte> HllCorrupt => "-INVALIDOBJ Corrupted HLL object detected\r\n"u8;
    public static ReadOnlySpan<byte> HllDebugNoKey => "-ERR The specified key does not exist\r\n"u8;
    public static ReadOnlySpan<byte> HllNotSparse => "-ERR HLL encoding is not sparse\r\n"u8;
    public static string HllDebugUnknown(string subcommand) => $"ERR Unknown PFDEBUG subcommand '{subcommand}'";
    public static string HllTestFailed(string what) => "ERR TESTFAILED " + what;

    // Scripts.
    public static ReadOnlySpan<byte> NumKeysNegative => "-ERR Number of keys can't be negative\r\n"u8;
    public static ReadOnlySpan<byte> NoScript => "-NOSCRIPT No matching script. Please use EVAL.\r\n"u8;
    public static ReadOnlySpan<byte> ScriptFlushOption => "-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n"u8;
    public static ReadOnlySpan<byte> ScriptWriteFlagOnRo => "-ERR Can not execute a script with write flag using *_ro command.\r\n"u8;
    /// <summary>A script's reply nested past Lua 5.1's stack: this error stands in for the value that did not fit.</summary>
    public static ReadOnlySpan<byte> LuaStackLimit => "-ERR reached lua stack limit\r\n"u8;

    // Functions (FCALL, FUNCTION).
    public static ReadOnlySpan<byte> FunctionNotFound => "-ERR Function not found\r\n"u8;
    public static ReadOnlySpan<byte> FunctionBadNumKeys => "-ERR Bad number of keys provided\r\n"u8;
    public static ReadOnlySpan<byte> FunctionWriteFlagReadOnly => "-ERR Can not execute a script with write flag using *_ro command.\r\n"u8;
    public static ReadOnlySpan<byte> LibraryNotFound => "-ERR Library not found\r\n"u8;
    public static ReadOnlySpan<byte> LibraryNameMissing => "-ERR library name argument was not given\r\n"u8;
    public static ReadOnlySpan<byte> FunctionFlushOption => "-ERR FUNCTION FLUSH only supports SYNC|ASYNC option\r\n"u8;
    public static ReadOnlySpan<byte> FunctionRestorePolicy => "-ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.\r\n"u8;
    public static string FunctionLoadOption(string option) => "ERR Unknown option given: " + option;
    // Library texts (FunctionStore composes them; the handler adds "ERR ").
    public const string LibraryMetadataMissing = "Missing library metadata";
    public const string LibraryMetadataInvalid = "Invalid library metadata";
    public const string LibraryNameTwice = "Invalid metadata value, name argument was given multiple times";
    public const string LibraryMetadataValue = "Invalid metadata value given: ";
    public const string LibraryNameNotGiven = "Library name was not given";
    public const string LibraryNameInvalid = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";
    public const string LibraryNoFunctions = "No functions registered";
    public const string FunctionPayloadInvalid = "DUMP payload version or checksum are wrong";
    public const string FunctionPayloadPreGa = "Pre-GA function format not supported";
    public const string FunctionPayloadNotFunction = "given type is not a function";
    public const string FunctionPayloadLibrary = "Failed loading library payload";
    public static string EngineNotFound(string engine) => $"Engine '{engine}' not found";
    public static string LibraryExists(string name) => $"Library '{name}' already exists";
    /// <summary>RESTORE's wording of <see cref="LibraryExists"/>: no quotes (Redis's libraryJoin).</summary>
    public static string LibraryExistsOnRestore(string name) => $"Library {name} already exists";
    public static string FunctionExists(string name) => $"Function {name} already exists";
    public static string FunctionListArgument(string argument) => "ERR Unknown argument " + argument;

    // A script past busy-reply-threshold: what other clients get (per the kind of script running),
    // and SCRIPT KILL / FUNCTION KILL.
    public const string BusyEval = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    public const string BusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    public static ReadOnlySpan<byte> NotBusy => "-NOTBUSY No scripts in execution right now.\r\n"u8;
    public static ReadOnlySpan<byte> UnkillableScript =>
        "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n"u8;

    // Sorted sets: ZADD's options, ranges, ZUNION/ZINTER/ZDIFF.
    public static ReadOnlySpan<byte> ZAddXxAndNx => "-ERR XX and NX options at the same time are not compatible\r\n"u8;
    public static ReadOnlySpan<byte> ZAddGtLtNx => "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n"u8;
    public static ReadOnlySpan<byte> ZAddIncrSinglePair => "-ERR INCR option supports a single increment-element pair\r\n"u8;
    public static ReadOnlySpan<byte> ScoreNaN => "-ERR resulting score is not a number (NaN)\r\n"u8;
    public static ReadOnlySpan<byte> MinMaxNotFloat => "-ERR min or max is not a float\r\n"u8;
    public static ReadOnlySpan<byte> MinMaxNotString => "-ERR min or max not valid string range item\r\n"u8;
    public static ReadOnlySpan<byte> LimitNeedsBy =>
        "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n"u8;
    public static ReadOnlySpan<byte> WithScoresByLex => "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n"u8;
    public static ReadOnlySpan<byte> WeightNotFloat => "-ERR weight value is not a float\r\n"u8;

    public static string NoInputKeys(ReadOnlySpan<byte> command)
        => $"ERR at least 1 input key is needed for '{Latin(command).ToLowerInvariant()}' command";

    // SORT.
    public static ReadOnlySpan<byte> SortNotDoubles => "-ERR One or more scores can't be converted into double\r\n"u8;
    /// <summary>SORT's BY with a '*' pattern, for a user who cannot read every key.</summary>
    public static ReadOnlySpan<byte> SortByDenied => "-ERR BY option of SORT denied due to insufficient ACL permissions.\r\n"u8;
    /// <summary>SORT's GET (any pattern, '#' too), for a user who cannot read every key.</summary>
    public static ReadOnlySpan<byte> SortGetDenied => "-ERR GET option of SORT denied due to insufficient ACL permissions.\r\n"u8;

    // Blocking commands and CLIENT UNBLOCK. Their timeout is a float; CLIENT PAUSE's (below) an integer.
    public static ReadOnlySpan<byte> TimeoutNotFloat => "-ERR timeout is not a float or out of range\r\n"u8;
    public static ReadOnlySpan<byte> UnblockReason => "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n"u8;

    // Transactions.
    public static ReadOnlySpan<byte> MultiNested => "-ERR MULTI calls can not be nested\r\n"u8;
    public static ReadOnlySpan<byte> ExecWithoutMulti => "-ERR EXEC without MULTI\r\n"u8;
    public static ReadOnlySpan<byte> DiscardWithoutMulti => "-ERR DISCARD without MULTI\r\n"u8;
    public static ReadOnlySpan<byte> WatchInsideMulti => "-ERR WATCH inside MULTI is not allowed\r\n"u8;

    // Connection: AUTH, HELLO, MONITOR.
    public static ReadOnlySpan<byte> NoPasswordConfigured =>
        "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n"u8;
    public static ReadOnlySpan<byte> WrongPass => "-WRONGPASS invalid username-password pair or user is disabled.\r\n"u8;
    public static ReadOnlySpan<byte> NoProto => "-NOPROTO unsupported protocol version\r\n"u8;
    public static ReadOnlySpan<byte> HelloNoAuth =>
        "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"u8;
    public static ReadOnlySpan<byte> ProtoVersionNotInteger => "-ERR Protocol version is not an integer or out of range\r\n"u8;
    public static ReadOnlySpan<byte> MonitorDenied => "-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n"u8;

    public static string HelloSyntax(ReadOnlySpan<byte> option) => $"ERR Syntax error in HELLO option '{Latin(option)}'";

    // CLIENT.
    public static ReadOnlySpan<byte> ClientNameInvalid => "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"u8;
    public static ReadOnlySpan<byte> NoSuchClient => "-ERR No such client\r\n"u8;
    public static ReadOnlySpan<byte> ClientIdNotPositive => "-ERR client-id should be greater than 0\r\n"u8;
    public static ReadOnlySpan<byte> InvalidClientId => "-ERR Invalid client ID\r\n"u8;
    public static ReadOnlySpan<byte> MaxAgeNotInteger => "-ERR maxage is not an integer or out of range\r\n"u8;
    public static ReadOnlySpan<byte> MaxAgeNotPositive => "-ERR maxage should be greater than 0\r\n"u8;
    public static ReadOnlySpan<byte> ClientPauseMode => "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n"u8;
    public static ReadOnlySpan<byte> TimeoutNotInteger => "-ERR timeout is not an integer or out of range\r\n"u8;

    public static string UnrecognizedOption(ReadOnlySpan<byte> option) => $"ERR Unrecognized option '{Latin(option)}'";
    /// <summary>CLIENT SETINFO's value check; <paramref name="attribute"/> is printed as the client sent it.</summary>
    public static string ClientInfoInvalid(ReadOnlySpan<byte> attribute) => $"ERR {Latin(attribute)} cannot contain spaces, newlines or special characters.";
    public static string NoSuchUser(ReadOnlySpan<byte> user) => $"ERR No such user '{Latin(user)}'";
    public static string UnknownClientType(ReadOnlySpan<byte> type) => $"ERR Unknown client type '{Latin(type)}'";

    // WAIT and WAITAOF.
    public static ReadOnlySpan<byte> WaitAofNumLocalRange => "-ERR value is out of range, value must between 0 and 1\r\n"u8;
    public static ReadOnlySpan<byte> WaitAofNoAof => "-ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.\r\n"u8;

    // CLIENT TRACKING and CLIENT CACHING (client-side caching).
    public static ReadOnlySpan<byte> TrackingOneRedirect => "-ERR A client can only redirect to a single other client\r\n"u8;
    public static ReadOnlySpan<byte> TrackingRedirectMissing => "-ERR The client ID you want redirect to does not exist\r\n"u8;
    public static ReadOnlySpan<byte> TrackingPrefixNeedsBcast => "-ERR PREFIX option requires BCAST mode to be enabled\r\n"u8;
    public static ReadOnlySpan<byte> TrackingBcastSwitch => "-ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.\r\n"u8;
    public static ReadOnlySpan<byte> TrackingOptBcast => "-ERR OPTIN and OPTOUT are not compatible with BCAST\r\n"u8;
    public static ReadOnlySpan<byte> TrackingOptInAndOut => "-ERR You can't specify both OPTIN mode and OPTOUT mode\r\n"u8;
    public static ReadOnlySpan<byte> TrackingOptSwitch => "-ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.\r\n"u8;
    public static ReadOnlySpan<byte> CachingNotTracking => "-ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled\r\n"u8;
    public static ReadOnlySpan<byte> CachingYesNeedsOptIn => "-ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.\r\n"u8;
    public static ReadOnlySpan<byte> CachingNoNeedsOptOut => "-ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.\r\n"u8;
    public static string TrackingPrefixOverlapsExisting(ReadOnlySpan<byte> prefix, ReadOnlySpan<byte> existing)
        => $"ERR Prefix '{Latin(prefix)}' overlaps with an existing prefix '{Latin(existing)}'. Prefixes for a single client must not overlap.";
    public static string TrackingPrefixOverlapsAnother(ReadOnlySpan<byte> prefix, ReadOnlySpan<byte> other)
        => $"ERR Prefix '{Latin(prefix)}' overlaps with another provided prefix '{Latin(other)}'. Prefixes for a single client must not overlap.";

    // Server: CONFIG, SHUTDOWN, CLUSTER.
    public static ReadOnlySpan<byte> NoConfigFile => "-ERR The server is running without a config file\r\n"u8;
    /// <summary>CONFIG REWRITE could not write the file: the reason is the system's (strerror).</summary>
    public static string RewritingConfigFile(string reason) => "ERR Rewriting config file: " + reason;
    public static ReadOnlySpan<byte> NoShutdownInProgress => "-ERR No shutdown in progress.\r\n"u8;
    public static ReadOnlySpan<byte> ClusterDisabled => "-ERR This instance has cluster support disabled\r\n"u8;

    public static string ConfigSetUnknownOption(string name) => $"ERR Unknown option or number of arguments for CONFIG SET - '{name}'";
    /// <summary>CONFIG SET refused a parameter; <paramref name="reason"/> is ConfigRegistry's (also used for the config file).</summary>
    public static string ConfigSetFailed(string name, string reason) => $"ERR CONFIG SET failed (possibly related to argument '{name}') - {reason}";
    /// <summary>The reason CONFIG SET maxclients gives when the open-files limit allows fewer clients: <paramref name="fitted"/>.</summary>
    public static string MaxClientsOverFileLimit(long fitted) => $"The operating system is not able to handle the specified number of clients, try with {fitted}";

    // COMMAND GETKEYS and GETKEYSANDFLAGS.
    public static ReadOnlySpan<byte> InvalidCommandSpecified => "-ERR Invalid command specified\r\n"u8;
    public static ReadOnlySpan<byte> CommandHasNoKeys => "-ERR The command has no key arguments\r\n"u8;
    public static ReadOnlySpan<byte> InvalidArgumentCountForCommand => "-ERR Invalid number of arguments specified for command\r\n"u8;
    public static ReadOnlySpan<byte> InvalidArgumentsForCommand => "-ERR Invalid arguments specified for command\r\n"u8;

    // MODULE (Redis's texts for a protected MODULE command, a library that fails to load, an unknown module).
    public static ReadOnlySpan<byte> ModuleNotAllowed =>
        "-ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.\r\n"u8;
    public static ReadOnlySpan<byte> ModuleLoadFailed => "-ERR Error loading the extension. Please check the server logs.\r\n"u8;
    public static ReadOnlySpan<byte> ModuleUnloadNoSuchModule => "-ERR Error unloading module: no such module with that name\r\n"u8;

    // DEBUG.
    public static ReadOnlySpan<byte> DebugNotAllowed =>
        "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.\r\n"u8;
    public static ReadOnlySpan<byte> DebugProtocolType =>
        "-ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false\r\n"u8;
    public static ReadOnlySpan<byte> Resp2NotSupported => "-ERR RESP2 is not supported by this command\r\n"u8;
    public static ReadOnlySpan<byte> DebugPopulateOom => "-ERR OOM in dictTryExpand\r\n"u8;
    public static ReadOnlySpan<byte> DebugPackedThreshold => "-ERR argument must be a memory value bigger than 1 and smaller than 4gb\r\n"u8;
    public static ReadOnlySpan<byte> NotListpack => "-ERR Not a listpack encoded object.\r\n"u8;
    public static ReadOnlySpan<byte> NotQuicklist => "-ERR Not a quicklist encoded object.\r\n"u8;

    // SLOWLOG.
    public static ReadOnlySpan<byte> SlowlogCount => "-ERR count should be greater than or equal to -1\r\n"u8;

    // LATENCY GRAPH of an event with no samples.
    public static string LatencyNoSamples(string evt) => $"ERR No samples available for event '{evt}'";

    // SAVE, BGSAVE, SHUTDOWN, loading.
    public const string Loading = "LOADING Redis is loading the dataset in memory";

    // Replication, the replica side (replication.c, server.c's processCommand).
    public const string ReadOnlyReplica = "READONLY You can't write against a read only replica.";
    public const string MasterDown = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
    public const string InvalidMasterPort = "ERR Invalid master port";
    public const string ReplicaOfByReplica = "ERR Command is not valid when client is a replica.";
    public const string ReplicaOfDuringFailover = "ERR REPLICAOF not allowed while failing over.";

    // FAILOVER and the PSYNC FAILOVER it sends (replication.c).
    public const string FailoverNotInProgress = "ERR No failover in progress.";
    public const string FailoverTimeoutNotPositive = "ERR FAILOVER timeout must be greater than 0";
    public const string FailoverInProgress = "ERR FAILOVER already in progress.";
    public const string FailoverOnReplica = "ERR FAILOVER is not valid when server is a replica.";
    public const string FailoverNoReplicas = "ERR FAILOVER requires connected replicas.";
    public const string FailoverForceNeedsTarget = "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
    public const string FailoverTargetUnknown = "ERR FAILOVER target HOST and PORT is not a replica.";
    public const string FailoverTargetNotOnline = "ERR FAILOVER target replica is not online.";
    public const string PsyncFailoverToMaster = "ERR PSYNC FAILOVER can't be sent to a master.";
    public const string PsyncFailoverReplId = "ERR PSYNC FAILOVER replid must match my replid.";
    public const string SyncWhileFailingOver = "NOMASTERLINK Can't SYNC while failing over";
    public const string SyncWithPendingOutput = "ERR SYNC and PSYNC are invalid with pending output";
    public const string SyncWithoutMasterLink = "NOMASTERLINK Can't SYNC while not connected with my master";

    /// <summary>maxmemory reached and nothing to evict (or noeviction): denyoom commands are refused.</summary>
    public const string Oom = "OOM command not allowed when used memory > 'maxmemory'.";

    /// <summary><see cref="Oom"/> as a reply.</summary>
    public static ReadOnlySpan<byte> OomReply => "-OOM command not allowed when used memory > 'maxmemory'.\r\n"u8;
    /// <summary>
    /// A background save failed and stop-writes-on-bgsave-error is on: write commands and PING are
    /// refused until a save succeeds (Redis's shared.bgsaveerr).
    /// </summary>
    public const string WaitOnReplica = "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.";

    public const string WaitAofOnReplica = "ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.";

    /// <summary>min-replicas-to-write with too few good replicas (shared.noreplicaserr).</summary>
    public const string NoReplicas = "NOREPLICAS Not enough good replicas to write.";

    public const string MisconfRdb =
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";

    /// <summary>Writing or fsyncing the AOF failed: writes and PING are refused until a write succeeds; the reason is strerror's.</summary>
    public static string MisconfAof(string reason) => "MISCONF Errors writing to the AOF file: " + reason;

    public static ReadOnlySpan<byte> BackgroundSaveInProgress => "-ERR Background save already in progress\r\n"u8;
    public static ReadOnlySpan<byte> BareErr => "-ERR\r\n"u8;
    public static ReadOnlySpan<byte> BgSaveWhileRewriting =>
        "-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n"u8;
    public static ReadOnlySpan<byte> RewriteInProgress => "-ERR Background append only file rewriting already in progress\r\n"u8;
    public static ReadOnlySpan<byte> RewriteFailed =>
        "-ERR Can't execute an AOF background rewriting. Please check the server logs for more information.\r\n"u8;
    public static ReadOnlySpan<byte> DebugReloadOptions => "-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.\r\n"u8;
    public static ReadOnlySpan<byte> DebugReloadFailed => "-ERR Error trying to load the RDB dump, check server logs.\r\n"u8;
    public static ReadOnlySpan<byte> ShutdownErrors => "-ERR Errors trying to SHUTDOWN. Check logs.\r\n"u8;

    // DUMP and RESTORE.
    public static ReadOnlySpan<byte> BusyKey => "-BUSYKEY Target key name already exists.\r\n"u8;
    public static ReadOnlySpan<byte> RestoreTtl => "-ERR Invalid TTL value, must be >= 0\r\n"u8;
    public static ReadOnlySpan<byte> RestoreIdleTime => "-ERR Invalid IDLETIME value, must be >= 0\r\n"u8;
    public static ReadOnlySpan<byte> RestoreFreq => "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n"u8;
    public static ReadOnlySpan<byte> DumpPayloadWrong => "-ERR DUMP payload version or checksum are wrong\r\n"u8;
    public static ReadOnlySpan<byte> BadDataFormat => "-ERR Bad data format\r\n"u8;

    // Streams.
    public static ReadOnlySpan<byte> StreamInvalidId => "-ERR Invalid stream ID specified as stream command argument\r\n"u8;
    public static ReadOnlySpan<byte> XSetIdEntriesAddedNegative => "-ERR entries_added must be positive\r\n"u8;
    public static ReadOnlySpan<byte> XSetIdBelowGivenMaxDeleted => "-ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id\r\n"u8;
    public static ReadOnlySpan<byte> XSetIdBelowMaxDeleted => "-ERR The ID specified in XSETID is smaller than current max_deleted_entry_id\r\n"u8;
    public static ReadOnlySpan<byte> XSetIdBelowTop => "-ERR The ID specified in XSETID is smaller than the target stream top item\r\n"u8;
    public static ReadOnlySpan<byte> XSetIdEntriesAddedBelowLength => "-ERR The entries_added specified in XSETID is smaller than the target stream length\r\n"u8;
    public static ReadOnlySpan<byte> StreamIdTooSmall => "-ERR The ID specified in XADD is equal or smaller than the target stream top item\r\n"u8;
    public static ReadOnlySpan<byte> StreamIdZero => "-ERR The ID specified in XADD must be greater than 0-0\r\n"u8;
    public static ReadOnlySpan<byte> StreamExhausted => "-ERR The stream has exhausted the last possible ID, unable to add more items\r\n"u8;
    public static ReadOnlySpan<byte> StreamElementsTooLarge => "-ERR Elements are too large to be stored\r\n"u8;
    public static ReadOnlySpan<byte> StreamMaxLenNegative => "-ERR The MAXLEN argument must be >= 0.\r\n"u8;
    public static ReadOnlySpan<byte> StreamLimitNegative => "-ERR The LIMIT argument must be >= 0.\r\n"u8;
    public static ReadOnlySpan<byte> StreamTrimBoth => "-ERR syntax error, MAXLEN and MINID options at the same time are not compatible\r\n"u8;
    public static ReadOnlySpan<byte> StreamLimitWithoutStrategy => "-ERR syntax error, LIMIT cannot be used without specifying a trimming strategy\r\n"u8;
    public static ReadOnlySpan<byte> StreamTrimWithoutStrategy => "-ERR syntax error, XTRIM must be called with a trimming strategy\r\n"u8;
    public static ReadOnlySpan<byte> StreamLimitWithoutApprox => "-ERR syntax error, LIMIT cannot be used without the special ~ option\r\n"u8;
    public static ReadOnlySpan<byte> StreamInvalidStart => "-ERR invalid start ID for the interval\r\n"u8;
    public static ReadOnlySpan<byte> StreamInvalidEnd => "-ERR invalid end ID for the interval\r\n"u8;
    // XDELEX and XACKDEL (Redis 8.2).
    public static ReadOnlySpan<byte> StreamNumIdsNotPositive => "-ERR Number of IDs must be a positive integer\r\n"u8;
    public static ReadOnlySpan<byte> StreamNumIdsMismatch => "-ERR The `numids` parameter must match the number of arguments\r\n"u8;
    public static ReadOnlySpan<byte> StreamIdsRequired => "-ERR IDS option is required\r\n"u8;

    // XREAD and XREADGROUP.
    public static ReadOnlySpan<byte> TimeoutOutOfRange => "-ERR timeout is out of range\r\n"u8;
    public static ReadOnlySpan<byte> XReadGroupOption => "-ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.\r\n"u8;
    public static ReadOnlySpan<byte> XReadNoAckOption => "-ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.\r\n"u8;
    public static ReadOnlySpan<byte> XReadGroupMissingGroup => "-ERR Missing GROUP option for XREADGROUP\r\n"u8;
    public static ReadOnlySpan<byte> XReadGreaterThanId =>
        "-ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.\r\n"u8;
    public static ReadOnlySpan<byte> XReadGroupDollarId =>
        "-ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.\r\n"u8;
    /// <summary>Redis 7.4: XREADGROUP given "+" (XREAD's last-entry ID).</summary>
    public static ReadOnlySpan<byte> XReadGroupPlusId =>
        "-ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The + ID would just return an empty result set.\r\n"u8;
    /// <summary>Redis 7.4: XREAD's "+" on an existing stream whose last ID is 0-0 (nothing comes before it).</summary>
    public static ReadOnlySpan<byte> XReadPlusOnZeroId => "-ERR the stream last element ID is 0-0\r\n"u8;

    /// <summary>The STREAMS list has an odd length; XREADGROUP names '>' as the ID to give, XREAD '$'.</summary>
    public static ReadOnlySpan<byte> UnbalancedStreams(bool group) => group
        ? "-ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.\r\n"u8
        : "-ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.\r\n"u8;

    /// <summary>BLOCK from a script; <paramref name="command"/> is the name as the script spelled it.</summary>
    public static string BlockFromScript(ReadOnlySpan<byte> command) => $"ERR {Latin(UpToNul(command))} command is not allowed with BLOCK option from scripts";

    /// <summary>XREADGROUP on a missing key or group (printed as C strings: up to a NUL byte).</summary>
    public static string XReadNoGroup(ReadOnlySpan<byte> key, ReadOnlySpan<byte> group)
        => $"NOGROUP No such key '{Latin(UpToNul(key))}' or consumer group '{Latin(UpToNul(group))}' in XREADGROUP with GROUP option";

    // Stream consumer groups.
    public static ReadOnlySpan<byte> XGroupEntriesReadNegative => "-ERR value for ENTRIESREAD must be positive or -1\r\n"u8;
    public static ReadOnlySpan<byte> XGroupKeyMissing => "-ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.\r\n"u8;
    public static ReadOnlySpan<byte> BusyGroup => "-BUSYGROUP Consumer Group name already exists\r\n"u8;
    /// <summary>XGROUP SETID, CREATECONSUMER and DELCONSUMER on a missing group (arguments already made one-line by the caller).</summary>
    public static string NoGroupForKey(string group, string key) => $"NOGROUP No such consumer group '{group}' for key name '{key}'";
    /// <summary>XPENDING, XCLAIM and XAUTOCLAIM without the key or the group.</summary>
    public static string NoKeyOrGroup(string key, string group) => $"NOGROUP No such key '{key}' or consumer group '{group}'";
    public static ReadOnlySpan<byte> XClaimMinIdle => "-ERR Invalid min-idle-time argument for XCLAIM\r\n"u8;
    public static ReadOnlySpan<byte> XClaimIdle => "-ERR Invalid IDLE option argument for XCLAIM\r\n"u8;
    public static ReadOnlySpan<byte> XClaimTime => "-ERR Invalid TIME option argument for XCLAIM\r\n"u8;
    public static ReadOnlySpan<byte> XClaimRetryCount => "-ERR Invalid RETRYCOUNT option argument for XCLAIM\r\n"u8;
    public static string XClaimUnrecognizedOption(string option) => $"ERR Unrecognized XCLAIM option '{option}'";
    public static ReadOnlySpan<byte> XAutoClaimMinIdle => "-ERR Invalid min-idle-time argument for XAUTOCLAIM\r\n"u8;
    public static ReadOnlySpan<byte> XAutoClaimCount => "-ERR COUNT must be > 0\r\n"u8;
    public static ReadOnlySpan<byte> XAutoClaimCountTooHigh => "-ERR Insufficient memory, failed allocating transient memory, COUNT too high.\r\n"u8;
}
