using RedisClone.PubSub;

namespace RedisClone.Commands;

/// <summary>
/// SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and their UNSUBSCRIBEs, PUBLISH, SPUBLISH, PUBSUB. Messages
/// reach subscribers through <see cref="PubSubRegistry"/>; a subscriber's own connection writes them.
/// </summary>
internal static class PubSubCommands
{
    private enum Kind { Channel, Pattern, Shard }

    /// <summary>SUBSCRIBE channel [channel ...] — one confirmation per channel with the subscription count.</summary>
    public static void Subscribe(ref CommandContext ctx) => SubscribeAll(ref ctx, Kind.Channel);

    /// <summary>PSUBSCRIBE pattern [pattern ...].</summary>
    public static void PSubscribe(ref CommandContext ctx) => SubscribeAll(ref ctx, Kind.Pattern);

    /// <summary>SSUBSCRIBE shardchannel [shardchannel ...].</summary>
    public static void SSubscribe(ref CommandContext ctx) => SubscribeAll(ref ctx, Kind.Shard);

    /// <summary>UNSUBSCRIBE [channel ...] — all channels when none is given.</summary>
    public static void Unsubscribe(ref CommandContext ctx) => UnsubscribeAll(ref ctx, Kind.Channel);

    /// <summary>PUNSUBSCRIBE [pattern ...].</summary>
    public static void PUnsubscribe(ref CommandContext ctx) => UnsubscribeAll(ref ctx, Kind.Pattern);

    /// <summary>SUNSUBSCRIBE [shardchannel ...].</summary>
    public static void SUnsubscribe(ref CommandContext ctx) => UnsubscribeAll(ref ctx, Kind.Shard);

    /// <summary>PUBLISH channel message — the number of clients that received it.</summary>
    /// <remarks>Replicas receive it too (not the AOF), so their subscribers hear it, as Redis does without cluster mode.</remarks>
    public static void Publish(ref CommandContext ctx) => Publish(ref ctx, shard: false);

    /// <summary>SPUBLISH shardchannel message.</summary>
    public static void SPublish(ref CommandContext ctx) => Publish(ref ctx, shard: true);

    /// <summary>
    /// A RESP3 client subscribed to the channel it publishes to gets its own message right after
    /// the PUBLISH reply, before the next command's, as Redis 7.2 postpones a push to the executing
    /// client until its reply is written (7.0 wrote it before the reply). Inside EXEC or a script the
    /// message is queued as any other, and so arrives after the transaction's or script's reply.
    /// </summary>
    private static void Publish(ref CommandContext ctx, bool shard)
    {
        var self = ctx.Client.InExec || ctx.Client.IsScriptClient ? null : ctx.Client.Subscriber;
        List<byte[]>? toSelf = null;
        ctx.Reply.Integer(ctx.Server.PubSub.Publish(ctx.Arg(1), ctx.Arg(2), shard, self, ref toSelf));
        if (toSelf != null)
            foreach (var message in toSelf) ctx.Reply.Raw(message);
        // In cluster mode Redis sends it over the bus instead of the replication stream.
        if (ctx.Server.Cluster?.Bus is { } bus) bus.PropagatePublish(ctx.Arg(1), ctx.Arg(2), shard);
        else ctx.Propagation?.Force(Storage.PropagationTarget.Replicas);
    }

    /// <summary>PUBSUB CHANNELS [pattern].</summary>
    public static void Channels(ref CommandContext ctx) => ListChannels(ref ctx, shard: false);

    /// <summary>PUBSUB SHARDCHANNELS [pattern].</summary>
    public static void ShardChannels(ref CommandContext ctx) => ListChannels(ref ctx, shard: true);

    /// <summary>PUBSUB NUMSUB [channel ...] — flat array of channel, count.</summary>
    public static void NumSub(ref CommandContext ctx) => CountSubscribers(ref ctx, shard: false);

    /// <summary>PUBSUB SHARDNUMSUB [shardchannel ...].</summary>
    public static void ShardNumSub(ref CommandContext ctx) => CountSubscribers(ref ctx, shard: true);

    /// <summary>PUBSUB NUMPAT — patterns subscribed by all clients.</summary>
    public static void NumPat(ref CommandContext ctx) => ctx.Reply.Integer(ctx.Server.PubSub.PatternCount);

    private static readonly HelpReply HelpText = new("PUBSUB",
        "CHANNELS [<pattern>]",
        "    The channels that have at least one subscriber; given a glob <pattern>, only",
        "    the channels whose name matches it.",
        "NUMPAT",
        "    How many pattern subscriptions (PSUBSCRIBE) exist, over all clients.",
        "NUMSUB [<channel> ...]",
        "    Each channel named, followed by its number of SUBSCRIBE subscribers; clients",
        "    that only match it through a pattern are not counted.",
        "SHARDCHANNELS [<pattern>]",
        "    As CHANNELS, for the shard channels of SSUBSCRIBE.",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    As NUMSUB, for the shard channels of SSUBSCRIBE.");

    /// <summary>PUBSUB HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);

    private static void ListChannels(ref CommandContext ctx, bool shard)
    {
        var channels = ctx.Server.PubSub.Channels(ctx.ArgCount > 2 ? ctx.Arg(2) : default, all: ctx.ArgCount <= 2, shard);
        ctx.Reply.ArrayHeader(channels.Count);
        foreach (var c in channels) ctx.Reply.Bulk(c);
    }

    private static void CountSubscribers(ref CommandContext ctx, bool shard)
    {
        ctx.Reply.ArrayHeader((ctx.ArgCount - 2) * 2);
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            ctx.Reply.Bulk(ctx.Arg(i));
            ctx.Reply.Integer(ctx.Server.PubSub.SubscriberCount(ctx.Arg(i), shard));
        }
    }

    private static void SubscribeAll(ref CommandContext ctx, Kind kind)
    {
        var client = ctx.Client;
        var registry = ctx.Server.PubSub;
        var set = client.Subscriptions(kind == Kind.Channel ? 0 : kind == Kind.Pattern ? 1 : 2);
        var name = kind switch { Kind.Channel => "subscribe"u8, Kind.Pattern => "psubscribe"u8, _ => "ssubscribe"u8 };
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            var target = ctx.Arg(i).ToArray();
            if (set.Add(target))
            {
                if (kind == Kind.Pattern) registry.PSubscribe(target, client.Subscriber!);
                else registry.Subscribe(target, client.Subscriber!, kind == Kind.Shard);
            }
            Confirm(ref ctx, name, target, kind == Kind.Shard ? client.ShardSubscriptionCount : client.SubscriptionCount);
        }
    }

    private static void UnsubscribeAll(ref CommandContext ctx, Kind kind)
    {
        var client = ctx.Client;
        var set = client.Subscriptions(kind == Kind.Channel ? 0 : kind == Kind.Pattern ? 1 : 2);
        var name = kind switch { Kind.Channel => "unsubscribe"u8, Kind.Pattern => "punsubscribe"u8, _ => "sunsubscribe"u8 };
        if (ctx.ArgCount == 1)
        {
            if (set.Count == 0)
            {
                Confirm(ref ctx, name, null, kind == Kind.Shard ? client.ShardSubscriptionCount : client.SubscriptionCount);
                return;
            }
            foreach (var target in set.ToArray()) Remove(ref ctx, kind, name, target);
            return;
        }
        for (int i = 1; i < ctx.ArgCount; i++) Remove(ref ctx, kind, name, ctx.Arg(i).ToArray());
    }

    private static void Remove(ref CommandContext ctx, Kind kind, ReadOnlySpan<byte> name, byte[] target)
    {
        var client = ctx.Client;
        var set = client.Subscriptions(kind == Kind.Channel ? 0 : kind == Kind.Pattern ? 1 : 2);
        if (set.Remove(target))
        {
            if (kind == Kind.Pattern) ctx.Server.PubSub.PUnsubscribe(target, client.Subscriber!);
            else ctx.Server.PubSub.Unsubscribe(target, client.Subscriber!, kind == Kind.Shard);
        }
        Confirm(ref ctx, name, target, kind == Kind.Shard ? client.ShardSubscriptionCount : client.SubscriptionCount);
    }

    /// <summary>[kind, channel (nil when none), count], a push in RESP3.</summary>
    private static void Confirm(ref CommandContext ctx, ReadOnlySpan<byte> kind, byte[]? target, int count)
    {
        ctx.Reply.PushHeader(3);
        ctx.Reply.Bulk(kind);
        if (target == null) ctx.Reply.NullBulk(); else ctx.Reply.Bulk(target);
        ctx.Reply.Integer(count);
    }

    /// <summary>Drops every subscription of a client (RESET, disconnect) without replying.</summary>
    public static void UnsubscribeEverything(PubSubRegistry registry, ClientSession client)
    {
        if (client.Subscriber == null) return;
        foreach (var c in client.Subscriptions(0)) registry.Unsubscribe(c, client.Subscriber, shard: false);
        foreach (var p in client.Subscriptions(1)) registry.PUnsubscribe(p, client.Subscriber);
        foreach (var s in client.Subscriptions(2)) registry.Unsubscribe(s, client.Subscriber, shard: true);
        for (int k = 0; k < 3; k++) client.Subscriptions(k).Clear();
    }
}
