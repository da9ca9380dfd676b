using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The pub/sub family's rows. Shard channels are declared as keys, as Redis does (not_key specs).</summary>
    private static IEnumerable<CommandDef> PubSubRows()
    {
        const CommandFlags Subscribing = CommandFlags.PubSub | NoScript | Loading | Stale;
        const CommandFlags Info = CommandFlags.PubSub | Loading | Stale;
        return
        [
            //  name           arity  flags                            first last step handler
            new("subscribe",      -2, Subscribing,                               0,  0, 0, PubSubCommands.Subscribe, group: "pubsub"),
            new("unsubscribe",    -1, Subscribing,                               0,  0, 0, PubSubCommands.Unsubscribe, group: "pubsub"),
            new("psubscribe",     -2, Subscribing,                               0,  0, 0, PubSubCommands.PSubscribe, group: "pubsub"),
            new("punsubscribe",   -1, Subscribing,                               0,  0, 0, PubSubCommands.PUnsubscribe, group: "pubsub"),
            new("ssubscribe",     -2, Subscribing,                               1, -1, 1, PubSubCommands.SSubscribe, group: "pubsub"),
            new("sunsubscribe",   -1, Subscribing,                               1, -1, 1, PubSubCommands.SUnsubscribe, group: "pubsub"),
            new("publish",         3, Info | Fast,                         0,  0, 0, PubSubCommands.Publish, group: "pubsub"),
            new("spublish",        3, Info | Fast,                         1,  1, 1, PubSubCommands.SPublish, group: "pubsub"),
            new("pubsub",         -2, None,                                0,  0, 0, ServerCommands.Help, group: "pubsub", subcommands:
            [
                Sub("channels",   -2, Info, PubSubCommands.Channels),
                Sub("numpat",      2, Info, PubSubCommands.NumPat),
                Sub("numsub",     -2, Info, PubSubCommands.NumSub),
                Sub("shardchannels", -2, Info, PubSubCommands.ShardChannels),
                Sub("shardnumsub", -2, Info, PubSubCommands.ShardNumSub),
                Sub("help",        2, Loading | Stale, PubSubCommands.Help),
            ]),
        ];
    }
}
