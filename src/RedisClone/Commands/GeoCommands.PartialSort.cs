namespace RedisClone.Commands;

internal static partial class GeoCommands
{
    /// <summary>
    /// Redis's pqsort (a Bentley-McIlroy three-way quicksort that skips the partitions lying wholly
    /// outside the wanted range), rewritten over spans: with equal distances the order it leaves is
    /// not stable, and GEOSEARCH ... COUNT n must return ties in exactly redis-server's order, so this
    /// makes the same pivot choices, swaps and recursions.
    /// </summary>
    private static class PartialQuickSort
    {
        /// <summary>Sorts enough of <paramref name="items"/> that places <paramref name="low"/>..<paramref name="high"/> hold their final elements.</summary>
        public static void Sort(Span<Hit> items, int direction, int low, int high) => Run(items, 0, items.Length, direction, low, high);

        /// <summary>Redis's sort_gp_asc (and, negated, sort_gp_desc): by distance only.</summary>
        public static int Compare(in Hit a, in Hit b, int direction)
        {
            int c = a.Dist > b.Dist ? 1 : a.Dist == b.Dist ? 0 : -1;
            return c * direction;
        }

        private static int Median3(Span<Hit> v, int a, int b, int c, int d)
            => Compare(v[a], v[b], d) < 0
                ? (Compare(v[b], v[c], d) < 0 ? b : Compare(v[a], v[c], d) < 0 ? c : a)
                : (Compare(v[b], v[c], d) > 0 ? b : Compare(v[a], v[c], d) < 0 ? a : c);

        private static void Swap(Span<Hit> v, int i, int j) => (v[i], v[j]) = (v[j], v[i]);

        private static void SwapRun(Span<Hit> v, int i, int j, int n)
        {
            for (int k = 0; k < n; k++) Swap(v, i + k, j + k);
        }

        /// <summary>Sorts v[start..start+n) as far as the wanted places need (direction <paramref name="d"/>: 1 ascending, -1 descending).</summary>
        private static void Run(Span<Hit> v, int start, int n, int d, int low, int high)
        {
            while (true)
            {
                if (n < 7)
                {
                    for (int m = start + 1; m < start + n; m++)
                        for (int l = m; l > start && Compare(v[l - 1], v[l], d) > 0; l--) Swap(v, l, l - 1);
                    return;
                }
                int pm = start + n / 2;
                if (n > 7)
                {
                    int pl = start, pn = start + n - 1;
                    if (n > 40)
                    {
                        int step = n / 8;
                        pl = Median3(v, pl, pl + step, pl + 2 * step, d);
                        pm = Median3(v, pm - step, pm, pm + step, d);
                        pn = Median3(v, pn - 2 * step, pn - step, pn, d);
                    }
                    pm = Median3(v, pl, pm, pn, d);
                }
                Swap(v, start, pm);
                int pa = start + 1, pb = pa, pc = start + n - 1, pd = pc;
                while (true)
                {
                    int c;
                    while (pb <= pc && (c = Compare(v[pb], v[start], d)) <= 0)
                    {
                        if (c == 0) Swap(v, pa++, pb);
                        pb++;
                    }
                    while (pb <= pc && (c = Compare(v[pc], v[start], d)) >= 0)
                    {
                        if (c == 0) Swap(v, pc, pd--);
                        pc--;
                    }
                    if (pb > pc) break;
                    Swap(v, pb++, pc--);
                }
                int end = start + n;
                int r = Math.Min(pa - start, pb - pa);
                SwapRun(v, start, pb - r, r);
                r = Math.Min(pd - pc, end - pd - 1);
                SwapRun(v, pb, end - r, r);

                // Both sides are sorted independently, so their order does not change the result:
                // recurse into the smaller one and loop on the larger, which bounds the depth by
                // log2(n) whatever the input (Redis's pqsort recurses on the left side always).
                int leftN = pb - pa, rightN = pd - pc, rightStart = end - rightN;
                bool left = leftN > 1 && Overlaps(start, start + leftN - 1, low, high);
                bool right = rightN > 1 && Overlaps(rightStart, rightStart + rightN - 1, low, high);
                if (left && right)
                {
                    if (leftN <= rightN)
                    {
                        Run(v, start, leftN, d, low, high);
                        start = rightStart;
                        n = rightN;
                    }
                    else
                    {
                        Run(v, rightStart, rightN, d, low, high);
                        n = leftN;
                    }
                }
                else if (left) n = leftN;
                else if (right)
                {
                    start = rightStart;
                    n = rightN;
                }
                else return;
            }
        }

        /// <summary>Whether the partition [first, last] touches the wanted places (pqsort's range test).</summary>
        private static bool Overlaps(int first, int last, int low, int high)
            => !((low < first && high < first) || (low > last && high > last));
    }
}
