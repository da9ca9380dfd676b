namespace RedisClone.Storage;

/// <summary>
/// A list value: one <see cref="Listpack"/> while small (OBJECT ENCODING "listpack"), a
/// <see cref="Quicklist"/> of listpack nodes once it outgrows list-max-listpack-size ("quicklist").
/// </summary>
/// <remarks>
/// The encoding changes as Redis 7.2's does (t_list.c's listTypeTryConversion): before elements are
/// added, a listpack whose bytes plus the new elements' lengths (or whose count plus theirs) would
/// break the limit becomes a quicklist; after elements are removed, a quicklist down to a single node
/// of at most half the limit becomes a listpack again (half, so a list hovering at the limit does not
/// flip on every command). Commands call <see cref="PrepareToGrow"/> and <see cref="AfterShrink"/>
/// at the points Redis does (and <see cref="ConvertIfSmall"/> after building a list in one go); the
/// rest of the class never converts.
/// <para>
/// One field holds either encoding (a <c>byte[]</c> or a <see cref="Quicklist"/>): a small list
/// costs this object (24 bytes) plus its listpack.
/// </para>
/// </remarks>
internal sealed class RedisList : MeteredValue, IRedisValue
{
    private object _data;

    public override long AllocatedBytes()
        => BaseBytes + 8 + (_data is byte[] lp ? MemoryMeter.ArrayBytes(lp.Length) : ((Quicklist)_data).AllocatedBytes());

    public RedisList() => _data = Listpack.New();

    private RedisList(object data) => _data = data;

    public string TypeName => "list";

    public string Encoding => _data is byte[] ? "listpack" : "quicklist";

    public long FreeEffort => _data is byte[] ? 1 : ((Quicklist)_data).NodeCount;

    public bool IsListpack => _data is byte[];

    public long Count => _data is byte[] lp ? Listpack.Count(lp) : ((Quicklist)_data).Count;

    /// <summary>The listpacks the list is made of: one while small, else the quicklist's nodes (for RDB).</summary>
    public int PackCount => _data is byte[] ? 1 : ((Quicklist)_data).NodeCount;

    /// <summary>The listpack <paramref name="i"/> of <see cref="PackCount"/> (its buffer may be larger than the listpack).</summary>
    public byte[] PackAt(int i) => _data is byte[] lp ? lp : ((Quicklist)_data).Node(i);

    public IRedisValue DeepCopy()
        => new RedisList(_data is byte[] lp ? Listpack.Clone(lp) : ((Quicklist)_data).Clone());

    // ---------------------------------------------------------------- encoding changes

    /// <summary>
    /// Before adding <paramref name="addCount"/> elements whose lengths sum to
    /// <paramref name="addBytes"/>: a listpack that could not take them under
    /// <paramref name="fill"/> (list-max-listpack-size) becomes a quicklist first.
    /// </summary>
    public void PrepareToGrow(long fill, long addBytes, long addCount)
    {
        if (_data is not byte[] lp) return;
        if (!Quicklist.ExceedsLimit(fill, Listpack.Bytes(lp) + addBytes, Listpack.Count(lp) + addCount)) return;
        var ql = new Quicklist((int)fill);
        if (!Listpack.IsEmpty(lp))
        {
            // The listpack becomes a node that is (nearly) full: its growth room is no longer needed.
            Listpack.Trim(ref lp);
            ql.AppendNode(lp);
        }
        _data = ql;
    }

    /// <summary>After removing elements: a quicklist down to one node of at most half the limit becomes a listpack.</summary>
    public void AfterShrink(long fill) => TryToListpack(fill, halfLimit: true);

    /// <summary>
    /// An empty list in the quicklist encoding, with the node fill a fresh Redis quicklist has (-2,
    /// whatever the config says): how Redis builds a list it fills in one go (SORT ... STORE, loading
    /// an RDB). Fill it with <see cref="PushTail"/>, then call <see cref="ConvertIfSmall"/>.
    /// </summary>
    public static RedisList NewQuicklist() => new(new Quicklist(-2));

    /// <summary>Redis's LIST_CONV_AUTO for a list just built: a quicklist of one node within the full limit becomes a listpack.</summary>
    public void ConvertIfSmall(long fill) => TryToListpack(fill, halfLimit: false);

    private void TryToListpack(long fill, bool halfLimit)
    {
        if (_data is not Quicklist ql || ql.NodeCount != 1) return;
        Quicklist.NodeLimit(fill, out long size, out long count);
        if (halfLimit)
        {
            size /= 2;
            count /= 2;
        }
        if (Listpack.Bytes(ql.Node(0)) > size || ql.Count > count) return;
        _data = ql.TakeOnlyNode();
    }

    /// <summary>Room for elements about to be pushed onto a listpack, so a multi-element push grows it once.</summary>
    public void Reserve(int bytes)
    {
        if (_data is not byte[] lp) return;
        Listpack.Reserve(ref lp, bytes);
        _data = lp;
    }

    // ---------------------------------------------------------------- ends

    public void PushHead(ReadOnlySpan<byte> value)
    {
        if (_data is byte[] lp)
        {
            Listpack.Prepend(ref lp, value);
            _data = lp;
        }
        else
        {
            ((Quicklist)_data).PushHead(value);
        }
    }

    public void PushTail(ReadOnlySpan<byte> value)
    {
        if (_data is byte[] lp)
        {
            Listpack.Append(ref lp, value);
            _data = lp;
        }
        else
        {
            ((Quicklist)_data).PushTail(value);
        }
    }

    // ---------------------------------------------------------------- reading

    /// <summary>A cursor on element <paramref name="index"/> (0 &lt;= index &lt; Count).</summary>
    public ListCursor At(long index)
    {
        if (_data is byte[] lp) return new ListCursor(this, 0, Listpack.Seek(lp, index));
        var ql = (Quicklist)_data;
        ql.Locate(index, out int node, out int inNode);
        return new ListCursor(this, node, Listpack.Seek(ql.Node(node), inNode));
    }

    internal int NodeCount => _data is byte[] ? 1 : ((Quicklist)_data).NodeCount;

    internal byte[] NodeBuffer(int node) => _data as byte[] ?? ((Quicklist)_data).Node(node);

    /// <summary>The node fill (list-max-listpack-size when it became a quicklist); 0 for a listpack.</summary>
    internal int QuicklistFill => (_data as Quicklist)?.Fill ?? 0;

    // ---------------------------------------------------------------- changing

    /// <summary>Deletes elements [<paramref name="start"/>, start + <paramref name="count"/>), a range inside the list.</summary>
    public void DeleteRange(long start, long count)
    {
        if (count <= 0) return;
        if (_data is byte[] lp)
        {
            Listpack.DeleteRange(ref lp, (int)start, (int)count);
            _data = lp;
        }
        else
        {
            ((Quicklist)_data).DeleteRange(start, count);
        }
    }

    /// <summary>LSET: replaces element <paramref name="index"/> (negative counts from the tail); false when out of range.</summary>
    public bool Replace(long index, ReadOnlySpan<byte> value)
    {
        long count = Count;
        if (index < 0) index += count;
        if (index < 0 || index >= count) return false;
        if (_data is byte[] lp)
        {
            Listpack.Replace(ref lp, Listpack.Seek(lp, index), value);
            _data = lp;
            return true;
        }
        var ql = (Quicklist)_data;
        ql.Locate(index, out int node, out int inNode);
        ql.Replace(node, Listpack.Seek(ql.Node(node), inNode), value);
        return true;
    }

    /// <summary>LINSERT: inserts <paramref name="value"/> next to the first element equal to <paramref name="pivot"/>; false when there is none.</summary>
    public bool Insert(ReadOnlySpan<byte> pivot, ReadOnlySpan<byte> value, bool after)
    {
        if (_data is byte[] lp)
        {
            for (int p = Listpack.First(lp); p >= 0; p = Listpack.Next(lp, p))
            {
                if (!Listpack.Matches(lp, p, pivot)) continue;
                Listpack.InsertAt(ref lp, after ? Listpack.Skip(lp, p) : p, value);
                _data = lp;
                return true;
            }
            return false;
        }
        var ql = (Quicklist)_data;
        for (int i = 0; i < ql.NodeCount; i++)
        {
            var node = ql.Node(i);
            int index = 0;
            for (int p = Listpack.First(node); p >= 0; p = Listpack.Next(node, p), index++)
            {
                if (!Listpack.Matches(node, p, pivot)) continue;
                ql.Insert(i, p, index, value, after);
                return true;
            }
        }
        return false;
    }

    /// <summary>
    /// LREM: removes elements equal to <paramref name="value"/>, at most <paramref name="limit"/> of
    /// them (0 = all), walking from the head, or from the tail when <paramref name="fromTail"/>.
    /// Returns how many went.
    /// </summary>
    public long Remove(ReadOnlySpan<byte> value, long limit, bool fromTail)
    {
        long removed = 0;
        if (_data is byte[] lp)
        {
            int p = fromTail ? Listpack.Last(lp) : Listpack.First(lp);
            while (p >= 0)
            {
                if (!Listpack.Matches(lp, p, value))
                {
                    p = fromTail ? Listpack.Prev(lp, p) : Listpack.Next(lp, p);
                    continue;
                }
                int next = Listpack.Delete(ref lp, p);
                removed++;
                if (removed == limit) break;
                // After a delete, the element that followed sits at the deleted position.
                p = !fromTail ? next : next >= 0 ? Listpack.Prev(lp, next) : Listpack.Last(lp);
            }
            _data = lp;
            return removed;
        }

        var ql = (Quicklist)_data;
        if (ql.NodeCount == 0) return 0;
        int node = fromTail ? ql.NodeCount - 1 : 0;
        int q = fromTail ? Listpack.Last(ql.Node(node)) : Listpack.First(ql.Node(node));
        while (true)
        {
            if (q < 0)
            {
                node += fromTail ? -1 : 1;
                if (node < 0 || node >= ql.NodeCount) break;
                q = fromTail ? Listpack.Last(ql.Node(node)) : Listpack.First(ql.Node(node));
                continue;
            }
            var buffer = ql.Node(node);
            if (!Listpack.Matches(buffer, q, value))
            {
                q = fromTail ? Listpack.Prev(buffer, q) : Listpack.Next(buffer, q);
                continue;
            }
            int next = ql.DeleteAt(node, q, out bool nodeRemoved);
            removed++;
            if (removed == limit) break;
            if (nodeRemoved)
            {
                // Walking on: forward, the following node now has this index; backward, the previous one.
                if (fromTail) node--;
                if (node < 0 || node >= ql.NodeCount) break;
                q = fromTail ? Listpack.Last(ql.Node(node)) : Listpack.First(ql.Node(node));
            }
            else
            {
                buffer = ql.Node(node);
                q = !fromTail ? next : next >= 0 ? Listpack.Prev(buffer, next) : Listpack.Last(buffer);
            }
        }
        return removed;
    }
}
