using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The pub/sub family. Shard channels are declared as keys, as Redis does (not_key specs).</summary>
    private static IEnumerable<CommandDef> PubSubRows()
    {
        const CommandFlags Subscribing = CommandFlags.PubSub | NoScript | Loading | Stale;
        const CommandFlags Info = CommandFlags.PubSub | Loading | Stale;
        return
        [
            new("subscribe", -2, Subscribing, PubSubCommands.Subscribe, group: "pubsub")
            {
                Summary = "Listens for messages published to channels.",
                Since = "2.0.0", Complexity = "O(N), N = channels", Args = "channel...",
            },
            new("unsubscribe", -1, Subscribing, PubSubCommands.Unsubscribe, group: "pubsub")
            {
                Summary = "Stops listening to channels; all of them when none is given.",
                Since = "2.0.0", Complexity = "O(N), N = channels", Args = "[channel...]",
            },
            new("psubscribe", -2, Subscribing, PubSubCommands.PSubscribe, group: "pubsub")
            {
                Summary = "Listens for messages published to channels matching glob patterns.",
                Since = "2.0.0", Complexity = "O(N), N = patterns", Args = "pattern{pattern:pattern}...",
            },
            new("punsubscribe", -1, Subscribing, PubSubCommands.PUnsubscribe, group: "pubsub")
            {
                Summary = "Stops listening to patterns; all of them when none is given.",
                Since = "2.0.0", Complexity = "O(N+M), N = patterns given, M = patterns in the server",
                Args = "[pattern:pattern...]",
            },
            new("ssubscribe", -2, Subscribing, PubSubCommands.SSubscribe, keys: "not_key r=-1,1,0", group: "pubsub")
            {
                Summary = "Listens for messages published to shard channels.",
                Since = "7.0.0", Complexity = "O(N), N = shard channels", Args = "shardchannel...",
            },
            new("sunsubscribe", -1, Subscribing, PubSubCommands.SUnsubscribe, keys: "not_key r=-1,1,0", group: "pubsub")
            {
                Summary = "Stops listening to shard channels; all of them when none is given.",
                Since = "7.0.0", Complexity = "O(N), N = shard channels", Args = "[shardchannel...]",
            },
            new("publish", 3, Info | Fast | MayReplicate, PubSubCommands.Publish, group: "pubsub")
            {
                Summary = "Sends a message to a channel; returns how many clients received it.",
                Since = "2.0.0", Complexity = "O(N+M), N = subscribers, M = patterns", Args = "channel message",
            },
            new("spublish", 3, Info | Fast | MayReplicate, PubSubCommands.SPublish, keys: "not_key", group: "pubsub")
            {
                Summary = "Sends a message to a shard channel; returns how many clients received it.",
                Since = "7.0.0", Complexity = "O(N), N = subscribers", Args = "shardchannel message",
            },
            new("pubsub", -2, None, ServerCommands.Help, group: "pubsub")
            {
                Summary = "A container for pub/sub introspection commands.",
                Since = "2.8.0", Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new("channels", -2, Info, PubSubCommands.Channels)
                    {
                        Summary = "Lists the channels that have subscribers, optionally matching a pattern.",
                        Since = "2.8.0", Complexity = "O(N), N = active channels", Args = "[pattern:pattern]",
                    },
                    new("numpat", 2, Info, PubSubCommands.NumPat)
                    {
                        Summary = "Counts the patterns subscribed to by all clients.",
                        Since = "2.8.0", Complexity = "O(1)",
                    },
                    new("numsub", -2, Info, PubSubCommands.NumSub)
                    {
                        Summary = "Counts the subscribers of channels (patterns not included).",
                        Since = "2.8.0", Complexity = "O(N), N = channels given", Args = "[channel...]",
                    },
                    new("shardchannels", -2, Info, PubSubCommands.ShardChannels)
                    {
                        Summary = "Lists the shard channels that have subscribers, optionally matching a pattern.",
                        Since = "7.0.0", Complexity = "O(N), N = active shard channels", Args = "[pattern:pattern]",
                    },
                    new("shardnumsub", -2, Info, PubSubCommands.ShardNumSub)
                    {
                        Summary = "Counts the subscribers of shard channels.",
                        Since = "7.0.0", Complexity = "O(N), N = shard channels given", Args = "[shardchannel...]",
                    },
                    new("help", 2, Loading | Stale, PubSubCommands.Help)
                    {
                        Summary = "Lists the PUBSUB subcommands.",
                        Since = "6.2.0", Complexity = "O(1)", Acl = "",
                    },
                ],
            },
        ];
    }
}
