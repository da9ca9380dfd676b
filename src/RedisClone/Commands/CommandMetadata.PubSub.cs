namespace RedisClone.Commands;

internal static partial class CommandMetadata
{
    /// <summary>The pub/sub family's metadata entries (same syntax as CoreEntries).</summary>
    private static MetadataEntry[] PubSubEntries() =>
    [
        E("subscribe", "2.0.0", "Listens for messages published to channels.", "O(N), N = channels",
            args: "channel..."),
        E("unsubscribe", "2.0.0", "Stops listening to channels; all of them when none is given.", "O(N), N = channels",
            args: "[channel...]"),
        E("psubscribe", "2.0.0", "Listens for messages published to channels matching glob patterns.", "O(N), N = patterns",
            args: "pattern{pattern:pattern}..."),
        E("punsubscribe", "2.0.0", "Stops listening to patterns; all of them when none is given.", "O(N+M), N = patterns given, M = patterns in the server",
            args: "[pattern:pattern...]"),
        E("ssubscribe", "7.0.0", "Listens for messages published to shard channels.", "O(N), N = shard channels",
            args: "shardchannel...", keys: "not_key"),
        E("sunsubscribe", "7.0.0", "Stops listening to shard channels; all of them when none is given.", "O(N), N = shard channels",
            args: "[shardchannel...]", keys: "not_key"),
        E("publish", "2.0.0", "Sends a message to a channel; returns how many clients received it.", "O(N+M), N = subscribers, M = patterns",
            args: "channel message"),
        E("spublish", "7.0.0", "Sends a message to a shard channel; returns how many clients received it.", "O(N), N = subscribers",
            args: "shardchannel message", keys: "not_key"),
        E("pubsub", "2.8.0", "A container for pub/sub introspection commands.", "Depends on subcommand."),
        E("pubsub|channels", "2.8.0", "Lists the channels that have subscribers, optionally matching a pattern.", "O(N), N = active channels",
            args: "[pattern:pattern]"),
        E("pubsub|numpat", "2.8.0", "Counts the patterns subscribed to by all clients.", "O(1)"),
        E("pubsub|numsub", "2.8.0", "Counts the subscribers of channels (patterns not included).", "O(N), N = channels given",
            args: "[channel...]"),
        E("pubsub|shardchannels", "7.0.0", "Lists the shard channels that have subscribers, optionally matching a pattern.", "O(N), N = active shard channels",
            args: "[pattern:pattern]"),
        E("pubsub|shardnumsub", "7.0.0", "Counts the subscribers of shard channels.", "O(N), N = shard channels given",
            args: "[shardchannel...]"),
        E("pubsub|help", "6.2.0", "Lists the PUBSUB subcommands.", "O(1)", acl: ""),
    ];
}
