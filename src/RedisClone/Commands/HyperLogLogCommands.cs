using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// HyperLogLog: strings in Redis's HLL layout (see <see cref="HyperLogLog"/>), so a value written
/// here reads the same on redis-server and the other way round.
/// </summary>
internal static class HyperLogLogCommands
{
    /// <summary>
    /// PFADD key [element ...] — adds the elements' hashes to the HLL, creating it (sparse) when
    /// missing; 1 when a register changed or the key was created, else 0.
    /// </summary>
    /// <remarks>
    /// A dense value is raised in place; a sparse one is edited in a copy (it may grow or turn dense)
    /// that replaces the value once. As Redis: the cached count goes stale and "pfadd" fires only when
    /// something changed.
    /// </remarks>
    public static void PfAdd(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var current)) return;
        bool created = slot < 0;
        if (!created && !HyperLogLog.HasValidHeader(current))
        {
            ctx.Error(RespErrors.HllNotValid);
            return;
        }
        int updated = created ? 1 : 0;
        if (!created && HyperLogLog.IsDense(current))
        {
            var bytes = StringValue.Writable(in db.Table.At(slot));
            var registers = bytes[HyperLogLog.HeaderSize..];
            for (int j = 2; j < ctx.ArgCount; j++)
            {
                int count = HyperLogLog.PatternLength(ctx.Arg(j), out int index);
                if (HyperLogLog.RaiseDense(registers, index, count)) updated++;
            }
            if (updated > 0) HyperLogLog.InvalidateCount(bytes);
        }
        else if (ctx.ArgCount > 2 || created)
        {
            var editor = new HyperLogLog.Editor(created ? HyperLogLog.CreateEmpty() : current, ctx.Server.Config.HllSparseMaxBytes);
            bool corrupt = false;
            for (int j = 2; j < ctx.ArgCount; j++)
            {
                int count = HyperLogLog.PatternLength(ctx.Arg(j), out int index);
                int result = editor.Set(index, count);
                if (result < 0)
                {
                    corrupt = true;
                    break;
                }
                updated += result;
            }
            // Registers raised before a corrupt part was met stay raised, as in Redis (which edits in place).
            if (updated > 0 || corrupt)
            {
                if (updated > 0) HyperLogLog.InvalidateCount(editor.Writable);
                if (created) slot = db.Add(key.ToArray(), editor.Value.ToArray());
                else db.ReplaceString(slot, editor.Value);
                db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
            }
            if (corrupt)
            {
                ctx.Error(RespErrors.HllCorrupt);
                return;
            }
        }
        if (updated > 0) ctx.Notify(Ev.String, "pfadd", key);
        else ctx.Unchanged = true;
        ctx.Reply.Raw(updated > 0 ? Resp.One : Resp.Zero);
    }

    /// <summary>
    /// PFCOUNT key [key ...] — the estimated number of distinct elements added to the HLL, or to the
    /// union of several (merged into a scratch register set, nothing stored); 0 for missing keys.
    /// </summary>
    /// <remarks>
    /// With one key the count is served from the header's cache when it is fresh, else computed and
    /// cached in the header, which WATCH sees as a change of the key and which propagates, as in Redis.
    /// </remarks>
    public static void PfCount(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 2)
        {
            // The union's registers, one byte each: on the stack (16 KB), nothing stored.
            Span<byte> max = stackalloc byte[HyperLogLog.Registers];
            max.Clear();
            for (int j = 1; j < ctx.ArgCount; j++)
            {
                if (!Lookup.TryReadString(ref ctx, ctx.Arg(j), out var value, out bool found)) return;
                if (!found) continue;
                if (!HyperLogLog.HasValidHeader(value))
                {
                    ctx.Error(RespErrors.HllNotValid);
                    return;
                }
                if (!HyperLogLog.TryMerge(value, max))
                {
                    ctx.Error(RespErrors.HllCorrupt);
                    return;
                }
            }
            ctx.Reply.Integer(HyperLogLog.CountRaw(max));
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
        if (slot < 0)
        {
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        if (!StringValue.TryGet(in db.Table.At(slot), out var hll))
        {
            ctx.WrongType();
            return;
        }
        if (!HyperLogLog.HasValidHeader(hll))
        {
            ctx.Error(RespErrors.HllNotValid);
            return;
        }
        if (!HyperLogLog.TryCachedCount(hll, out long cardinality))
        {
            if (!HyperLogLog.TryCount(hll, out cardinality))
            {
                ctx.Error(RespErrors.HllCorrupt);
                return;
            }
            HyperLogLog.StoreCount(StringValue.Writable(in db.Table.At(slot)), cardinality);
            // Redis counts this as a change (dirty++): WATCHers of the key see it, and PFCOUNT
            // propagates as sent although the command is read-only.
            db.SignalModified(key);
            ctx.Propagation?.Force(PropagationTarget.Both);
        }
        ctx.Reply.Integer(cardinality);
    }

    /// <summary>
    /// PFMERGE destkey [sourcekey ...] — sets destkey to the union of itself and the sources (a
    /// missing destkey starts empty); OK.
    /// </summary>
    /// <remarks>
    /// Every key's shard gate is held (the key specs name them all). As Redis: the destination is
    /// read as a source too, turns dense when any source is dense, and counts as written even when
    /// nothing changed ("pfadd" fires).
    /// </remarks>
    public static void PfMerge(ref CommandContext ctx)
    {
        Span<byte> max = stackalloc byte[HyperLogLog.Registers];
        max.Clear();
        bool useDense = false;
        for (int j = 1; j < ctx.ArgCount; j++)
        {
            if (!Lookup.TryReadString(ref ctx, ctx.Arg(j), out var value, out bool found)) return;
            if (!found) continue;
            if (!HyperLogLog.HasValidHeader(value))
            {
                ctx.Error(RespErrors.HllNotValid);
                return;
            }
            if (HyperLogLog.IsDense(value)) useDense = true;
            if (!HyperLogLog.TryMerge(value, max))
            {
                ctx.Error(RespErrors.HllCorrupt);
                return;
            }
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = db.FindLive(key, ctx.NowMs);
        ReadOnlySpan<byte> current = default;
        if (slot >= 0) StringValue.TryGet(in db.Table.At(slot), out current);
        var editor = new HyperLogLog.Editor(slot < 0 ? HyperLogLog.CreateEmpty() : current, ctx.Server.Config.HllSparseMaxBytes);
        if (useDense && !editor.Densify())
        {
            // Redis has already created a missing destination by then; it cannot be missing here
            // (a dense source was merged and the destination, read first, merged cleanly).
            ctx.Error(RespErrors.HllCorrupt);
            return;
        }
        for (int j = 0; j < max.Length; j++)
        {
            if (max[j] != 0) editor.Set(j, max[j]);
        }
        HyperLogLog.InvalidateCount(editor.Writable);
        if (slot < 0) slot = db.Add(key.ToArray(), editor.Value.ToArray());
        else db.ReplaceString(slot, editor.Value);
        db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
        ctx.Notify(Ev.String, "pfadd", key);
        ctx.Reply.Raw(Resp.Ok);
    }

    /// <summary>
    /// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key — looks inside an HLL: its 16384 registers (making
    /// a sparse value dense first), its sparse opcodes as text, its encoding, or converts it to dense
    /// (1 when it was sparse).
    /// </summary>
    /// <remarks>As Redis, only a conversion to dense counts as a write (and propagates).</remarks>
    public static void PfDebug(ref CommandContext ctx)
    {
        var sub = ctx.Arg(1);
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        ctx.Unchanged = true;
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var hll)) return;
        if (slot < 0)
        {
            ctx.Error(RespErrors.HllDebugNoKey);
            return;
        }
        if (!HyperLogLog.HasValidHeader(hll))
        {
            ctx.Error(RespErrors.HllNotValid);
            return;
        }
        bool getReg = System.Text.Ascii.EqualsIgnoreCase(sub, "GETREG"u8);
        if (getReg || System.Text.Ascii.EqualsIgnoreCase(sub, "TODENSE"u8))
        {
            bool converted = false;
            if (!HyperLogLog.IsDense(hll))
            {
                var dense = HyperLogLog.ToDense(hll);
                if (dense == null)
                {
                    ctx.Error(RespErrors.HllCorrupt);
                    return;
                }
                db.ReplaceValue(slot, dense);
                db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
                ctx.Unchanged = false;
                converted = true;
                hll = dense;
            }
            if (!getReg)
            {
                ctx.Reply.Raw(converted ? Resp.One : Resp.Zero);
                return;
            }
            var registers = hll[HyperLogLog.HeaderSize..];
            ctx.Reply.ArrayHeader(HyperLogLog.Registers);
            for (int j = 0; j < HyperLogLog.Registers; j++) ctx.Reply.Integer(HyperLogLog.GetDense(registers, j));
        }
        else if (System.Text.Ascii.EqualsIgnoreCase(sub, "DECODE"u8))
        {
            if (HyperLogLog.IsDense(hll)) ctx.Error(RespErrors.HllNotSparse);
            else ctx.Reply.Bulk(System.Text.Encoding.ASCII.GetBytes(HyperLogLog.DecodeSparse(hll)));
        }
        else if (System.Text.Ascii.EqualsIgnoreCase(sub, "ENCODING"u8))
        {
            ctx.Reply.SimpleString(HyperLogLog.IsDense(hll) ? "dense"u8 : "sparse"u8);
        }
        else
        {
            ctx.Error(RespErrors.HllDebugUnknown(System.Text.Encoding.UTF8.GetString(sub)));
        }
    }

    /// <summary>
    /// PFSELFTEST — checks the register packing and the estimator: random registers written and read
    /// back, then ten million elements added to a dense and to a sparse HLL whose counts must agree
    /// (the sparse one staying sparse while small) and stay within six standard errors at every power
    /// of ten. OK, or an error naming the failed check.
    /// </summary>
    public static void PfSelfTest(ref CommandContext ctx)
    {
        var random = new Random();
        var dense = new byte[HyperLogLog.DenseSize];
        "HYLL"u8.CopyTo(dense);
        var registers = dense.AsSpan(HyperLogLog.HeaderSize);
        var expected = new byte[HyperLogLog.Registers];
        for (int cycle = 0; cycle < 1000; cycle++)
        {
            for (int i = 0; i < expected.Length; i++)
            {
                expected[i] = (byte)random.Next(64);
                HyperLogLog.SetDense(registers, i, expected[i]);
            }
            for (int i = 0; i < expected.Length; i++)
            {
                int value = HyperLogLog.GetDense(registers, i);
                if (value != expected[i])
                {
                    ctx.Error(RespErrors.HllTestFailed($"Register {i} should be {expected[i]} but is {value}"));
                    return;
                }
            }
        }

        registers.Clear();
        long sparseMax = ctx.Server.Config.HllSparseMaxBytes;
        var sparse = new HyperLogLog.Editor(HyperLogLog.CreateEmpty(), sparseMax);
        double relativeError = 1.04 / Math.Sqrt(HyperLogLog.Registers);
        long checkpoint = 1;
        ulong seed = (ulong)random.NextInt64();
        Span<byte> element = stackalloc byte[8];
        for (long j = 1; j <= 10_000_000; j++)
        {
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(element, (ulong)j ^ seed);
            int count = HyperLogLog.PatternLength(element, out int index);
            HyperLogLog.RaiseDense(registers, index, count);
            sparse.Set(index, count);
            if (j != checkpoint) continue;
            if (j < sparseMax / 2 && sparse.IsDense)
            {
                ctx.Error(RespErrors.HllTestFailed("sparse encoding not used"));
                return;
            }
            HyperLogLog.TryCount(dense, out long denseCount);
            HyperLogLog.TryCount(sparse.Value, out long sparseCount);
            if (denseCount != sparseCount)
            {
                ctx.Error(RespErrors.HllTestFailed("dense/sparse disagree"));
                return;
            }
            long error = Math.Abs(checkpoint - denseCount);
            long maxError = j == 10 ? 1 : (long)Math.Ceiling(relativeError * 6 * checkpoint);
            if (error > maxError)
            {
                ctx.Error(RespErrors.HllTestFailed($"Too big error. card:{checkpoint} abserr:{error}"));
                return;
            }
            checkpoint *= 10;
        }
        ctx.Reply.Ok();
    }
}
