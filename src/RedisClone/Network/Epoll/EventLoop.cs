using System.Collections.Concurrent;
using System.ComponentModel;
using System.Runtime.InteropServices;

namespace RedisClone.Network.Epoll;

/// <summary>
/// One thread around one epoll instance, as in Redis's ae loop: it waits for sockets to become
/// readable, receives what they have and runs the connection's parser and commands right there
/// (the connection's read loop is resumed inline by the input pipe), so a request costs one recv
/// and one send, with no thread hop and no async socket machinery in between.
/// </summary>
/// <remarks>
/// Why not receive and send loops over two pipes, Kestrel's way (Network/PipelinesTransport.cs, used
/// where epoll is not available, for TLS, and with --transport sockets): measured under memtier at
/// pipeline 1, they cost async resumptions and a recv that answers EAGAIN per request on top of this
/// loop's one recv and one send (bench/memtier/transport.py compares the two).
/// Sockets are registered edge-triggered for input and output once; a socket's slot, epoll
/// registration and file descriptor are created and destroyed only on this thread, so an event
/// never reaches a closed descriptor or one the kernel has handed to a newer client. Other threads
/// talk to the loop through <see cref="Post"/>, which wakes it through an eventfd.
/// </remarks>
internal sealed unsafe class EventLoop : IDisposable
{
    private const int MaxEvents = 256;
    private const ulong WakeToken = ulong.MaxValue;
    private const int SweepIntervalMs = 1000;

    /// <summary>
    /// Busy cycles a <see cref="WakeReaderSoon"/> may wait. A master with a replica appends to the
    /// stream in nearly every cycle under load, and one send to the replica per cycle cost it a
    /// quarter more CPU per command than without one (issue 30); every 8 cycles the stream goes out
    /// in bigger sends, at most about a millisecond later, and at once when the loop goes idle.
    /// </summary>
    private const int SoonCycles = 8;

    private enum Request { Register, Resume, FinishFlush, WakeReader, Remove }

    private readonly int _epoll;
    private readonly int _wakeFd;
    private readonly Thread _thread;
    private readonly ConcurrentQueue<(Request Kind, EpollTransport Transport)> _requests = new();
    private EpollTransport?[] _slots = new EpollTransport?[64];
    private uint[] _generations = new uint[64];
    private readonly Lock _wakeLock = new();
    private bool _closed; // under _wakeLock: the descriptors are gone
    private readonly Stack<int> _freeSlots = new();
    private int _usedSlots;
    private int _wakeRequested;
    private volatile bool _stopping;
    private long _nextSweep;
    private int _threadId;
    private volatile bool _exited;
    private readonly List<EpollTransport> _soon = []; // loop thread only
    private int _soonCycles;
    private readonly bool _secondary;

    /// <summary>
    /// True on every loop but the first: Redis's "I/O threads" (the first loop stands for its main
    /// thread), for INFO's io_threaded_reads_processed and io_threaded_writes_processed.
    /// </summary>
    [ThreadStatic] internal static bool OnSecondaryLoop;

    /// <summary>
    /// Loop iterations (one per epoll_wait that returned), for INFO eventloop_*; and, for one
    /// iteration in <see cref="CycleSampleEvery"/>, how many were timed and their time awake in
    /// Stopwatch ticks. Timing every iteration would read the clock twice per request of an
    /// unpipelined client, as much again as the command itself costs (see CommandStats).
    /// </summary>
    public long Cycles, SampledCycles, SampledTicks;

    /// <summary>One iteration in this many is timed (a power of two).</summary>
    public const int CycleSampleEvery = 16;

    /// <summary>The longest timed iteration (Stopwatch ticks) and the most commands run in one (INFO debug); CONFIG RESETSTAT zeroes them.</summary>
    public long MaxCycleTicks, MaxCycleCommands;

    public EventLoop(string name, bool secondary = false)
    {
        _secondary = secondary;
        _epoll = Libc.epoll_create1(Libc.EPOLL_CLOEXEC);
        if (_epoll < 0) throw new Win32Exception(Marshal.GetLastPInvokeError(), "epoll_create1");
        _wakeFd = Libc.eventfd(0, Libc.EFD_CLOEXEC | Libc.EFD_NONBLOCK);
        if (_wakeFd < 0) throw new Win32Exception(Marshal.GetLastPInvokeError(), "eventfd");
        if (Libc.Add(_epoll, _wakeFd, Libc.EPOLLIN, WakeToken) < 0)
            throw new Win32Exception(Marshal.GetLastPInvokeError(), "epoll_ctl");
        _thread = new Thread(Run) { IsBackground = true, Name = name };
    }

    /// <summary>True where this transport can run (Linux).</summary>
    public static bool IsSupported => OperatingSystem.IsLinux();

    public void Start() => _thread.Start();

    public void Register(EpollTransport transport) => Post(Request.Register, transport);

    /// <summary>The transport's input pipe has room again: receive what the socket holds.</summary>
    public void Resume(EpollTransport transport) => Post(Request.Resume, transport);

    /// <summary>A pending flush of the transport was aborted or cancelled: complete it on this thread.</summary>
    public void FinishFlush(EpollTransport transport) => Post(Request.FinishFlush, transport);

    /// <summary>Another thread cancelled the transport's pending read: resume the reader on this thread.</summary>
    public void WakeReader(EpollTransport transport) => Post(Request.WakeReader, transport);

    /// <summary>
    /// <see cref="WakeReader"/> that may wait up to <see cref="SoonCycles"/> busy cycles, or until
    /// the loop finds no socket ready. From another thread it is <see cref="WakeReader"/> (the loop
    /// may be asleep in epoll_wait).
    /// </summary>
    public void WakeReaderSoon(EpollTransport transport)
    {
        if (_exited || Environment.CurrentManagedThreadId != _threadId)
        {
            WakeReader(transport);
            return;
        }
        _soon.Add(transport);
    }

    /// <summary>Delivers the wake-ups <see cref="WakeReaderSoon"/> put off (loop thread).</summary>
    private void WakeSoonReaders()
    {
        _soonCycles = 0;
        // A reader woken here may put itself back (its pump's budget ran out): that waits for the next round.
        int count = _soon.Count;
        for (int i = 0; i < count; i++)
        {
            var transport = _soon[i];
            try
            {
                transport.OnWakeReader();
            }
            catch (Exception)
            {
                transport.Close();
            }
        }
        _soon.RemoveRange(0, count);
    }

    /// <summary>Deregisters the socket and closes it (on the loop thread, see the remarks).</summary>
    public void Remove(EpollTransport transport) => Post(Request.Remove, transport);

    public void Dispose()
    {
        _stopping = true;
        Wake();
    }

    private void Post(Request kind, EpollTransport transport)
    {
        _requests.Enqueue((kind, transport));
        if (_exited)
        {
            DrainRequests(loopThread: false); // no loop to wake: do it here
            return;
        }
        // The loop itself (a PUBLISH waking subscribers on this loop, a connection ending here)
        // drains the queue before it waits again: no eventfd write, read and event for it.
        if (Environment.CurrentManagedThreadId == _threadId) return;
        if (Interlocked.Exchange(ref _wakeRequested, 1) == 0) Wake();
    }

    private void Wake()
    {
        // Under the lock: once the loop has closed its eventfd the number may belong to a client socket.
        lock (_wakeLock)
        {
            if (_closed) return;
            ulong one = 1;
            Libc.write(_wakeFd, (byte*)&one, sizeof(ulong));
        }
    }

    private void Run()
    {
        int size = Libc.EventSize, dataOffset = Libc.EventDataOffset;
        byte* events = (byte*)NativeMemory.Alloc((nuint)(MaxEvents * size));
        _threadId = Environment.CurrentManagedThreadId;
        OnSecondaryLoop = _secondary;
        try
        {
            while (!_stopping)
            {
                int timeout = SweepIntervalMs;
                if (_soon.Count > 0)
                {
                    if (++_soonCycles >= SoonCycles) WakeSoonReaders();
                    else timeout = 0; // look at the sockets; if none is ready, wake them then
                }
                if (!_requests.IsEmpty)
                {
                    DrainRequests();
                    if (!_requests.IsEmpty) timeout = 0; // posted while draining: look at the sockets, then drain again
                }
                int n = Libc.epoll_wait(_epoll, events, MaxEvents, timeout);
                if (n < 0)
                {
                    if (Marshal.GetLastPInvokeError() == Libc.EINTR) continue;
                    throw new Win32Exception(Marshal.GetLastPInvokeError(), "epoll_wait");
                }
                if (n == 0 && _soon.Count > 0) WakeSoonReaders(); // idle: no reason to wait
                bool timed = (Cycles & (CycleSampleEvery - 1)) == 0;
                long awake = timed ? System.Diagnostics.Stopwatch.GetTimestamp() : 0;
                int commandsBefore = Execution.CommandRunner.ThreadCommandCount;
                for (int i = 0; i < n; i++)
                {
                    byte* ev = events + i * size;
                    uint flags = *(uint*)ev;
                    ulong token = *(ulong*)(ev + dataOffset);
                    if (token == WakeToken)
                    {
                        ulong count;
                        Libc.read(_wakeFd, (byte*)&count, sizeof(ulong));
                        Interlocked.Exchange(ref _wakeRequested, 0);
                        DrainRequests();
                        continue;
                    }
                    var transport = _slots[(int)(uint)token];
                    if (transport == null || transport.Generation != (uint)(token >> 32)) continue; // a slot reused in this batch
                    try
                    {
                        const uint hangUp = Libc.EPOLLRDHUP | Libc.EPOLLHUP | Libc.EPOLLERR;
                        if ((flags & (Libc.EPOLLIN | hangUp)) != 0) transport.OnReadable((flags & hangUp) != 0);
                        if ((flags & (Libc.EPOLLOUT | Libc.EPOLLHUP | Libc.EPOLLERR)) != 0) transport.OnWritable();
                    }
                    catch (Exception)
                    {
                        transport.Close();
                    }
                }
                // Only this thread writes them (CONFIG RESETSTAT aside); INFO reads them racily.
                int ran = unchecked(Execution.CommandRunner.ThreadCommandCount - commandsBefore);
                if (ran > MaxCycleCommands) Volatile.Write(ref MaxCycleCommands, ran);
                if (timed)
                {
                    long busy = System.Diagnostics.Stopwatch.GetTimestamp() - awake;
                    if (busy > MaxCycleTicks) Volatile.Write(ref MaxCycleTicks, busy);
                    Volatile.Write(ref SampledTicks, SampledTicks + busy);
                    Volatile.Write(ref SampledCycles, SampledCycles + 1);
                }
                Volatile.Write(ref Cycles, Cycles + 1);
                long now = Environment.TickCount64;
                if (now >= _nextSweep)
                {
                    _nextSweep = now + SweepIntervalMs;
                    Sweep();
                }
            }
        }
        finally
        {
            NativeMemory.Free(events);
            lock (_wakeLock)
            {
                _closed = true;
                Libc.close(_wakeFd);
                Libc.close(_epoll);
            }
            // Sockets still here (clients that outlived the server's stop) are closed, not leaked.
            WakeSoonReaders();
            DrainRequests();
            foreach (var transport in _slots)
            {
                if (transport == null) continue;
                transport.Close();
                transport.OnRemoved();
            }
            // From now on posters run their requests themselves; this picks up what came in between.
            _exited = true;
            DrainRequests(loopThread: false);
        }
    }

    /// <summary>True once the loop's thread has ended (requests then run on the posting thread).</summary>
    internal bool Exited => _exited;

    /// <summary>Once a second: connections that received nothing since the last sweep give their buffers back.</summary>
    private void Sweep()
    {
        for (int i = 0; i < _usedSlots; i++)
        {
            var transport = _slots[i];
            if (transport == null) continue;
            try
            {
                if (!transport.ActiveSinceSweep) transport.TrimIfIdle();
                transport.ActiveSinceSweep = false;
            }
            catch (Exception)
            {
                transport.Close();
            }
        }
    }

    /// <summary>
    /// Runs the posted requests. On the loop thread (<paramref name="loopThread"/>) registrations
    /// take a slot and an epoll registration; once the loop has exited the posting thread runs them
    /// itself (a connection still ending must not wait for a loop that will never come back): a
    /// registration is refused, and there is no slot bookkeeping left to do.
    /// </summary>
    private void DrainRequests(bool loopThread = true)
    {
        while (_requests.TryDequeue(out var request))
        {
            var transport = request.Transport;
            try
            {
                switch (request.Kind)
                {
                    case Request.Register when !loopThread:
                        transport.Close();
                        transport.OnRemoved();
                        break;
                    case Request.Register:
                        int slot = _freeSlots.Count > 0 ? _freeSlots.Pop() : _usedSlots++;
                        if (slot == _slots.Length)
                        {
                            Array.Resize(ref _slots, _slots.Length * 2);
                            Array.Resize(ref _generations, _slots.Length);
                        }
                        _slots[slot] = transport;
                        transport.Slot = slot;
                        transport.Generation = ++_generations[slot];
                        uint interest = Libc.EPOLLIN | Libc.EPOLLOUT | Libc.EPOLLRDHUP | Libc.EPOLLET;
                        if (_closed || Libc.Add(_epoll, transport.Fd, interest, (ulong)transport.Generation << 32 | (uint)slot) < 0)
                        {
                            transport.Close();
                            transport.OnReadable(hangUp: true); // sees the shut-down socket and ends the input
                        }
                        break;
                    case Request.Resume:
                        if (loopThread && transport.Slot >= 0) transport.OnResumed();
                        break;
                    case Request.FinishFlush:
                        transport.OnFinishFlush();
                        break;
                    case Request.WakeReader:
                        transport.OnWakeReader();
                        break;
                    case Request.Remove:
                        if (loopThread && transport.Slot >= 0)
                        {
                            if (!_closed) Libc.Remove(_epoll, transport.Fd);
                            _slots[transport.Slot] = null;
                            _freeSlots.Push(transport.Slot);
                            transport.Slot = -1;
                        }
                        transport.OnRemoved();
                        break;
                }
            }
            catch (Exception)
            {
                transport.Close();
            }
        }
    }
}
