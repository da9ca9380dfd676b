using System.Diagnostics;
using System.Net;
using System.Text;
using System.Text.RegularExpressions;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// RedisClone started as a process of its own (the build beside the tests, under <c>dotnet</c>),
/// for what cannot be tried in the test host: process limits such as <c>ulimit -n</c>, the log on
/// standard output, the process's CPU time. Linux only (bash, /proc). Bound to 127.0.0.1, port 0;
/// the port is read from the ready line.
/// </summary>
public sealed partial class ExternalServer : IDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _output = new();

    private ExternalServer(Process process) => _process = process;

    public int Port { get; private set; }

    public int Pid => _process.Id;

    /// <summary>Everything the server has written to standard output and error so far.</summary>
    public string Output
    {
        get
        {
            lock (_output) return _output.ToString();
        }
    }

    /// <summary>
    /// Starts the server under <c>ulimit -n <paramref name="openFiles"/></c> (soft and hard) and waits until it accepts.
    /// <paramref name="command"/> runs another build of it (an installed <c>redisclone-server</c>, say) instead of the one beside the tests.
    /// <paramref name="sigintIgnored"/> starts it with SIGINT ignored, as a shell without job control starts a background job.
    /// </summary>
    public static ExternalServer Start(int openFiles, string extraArgs = "", int timeoutMs = 60_000, string? command = null, bool sigintIgnored = false)
    {
        var ready = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        var server = Launch(openFiles, 0, extraArgs, command, sigintIgnored ? "trap '' INT && " : "", line =>
        {
            var m = ReadyLine().Match(line);
            if (m.Success) ready.TrySetResult(int.Parse(m.Groups[1].Value));
        });
        if (!ready.Task.Wait(timeoutMs) || server._process.HasExited)
        {
            server.Dispose();
            throw new TimeoutException($"the server did not start in {timeoutMs} ms:\n{server.Output}");
        }
        server.Port = ready.Task.Result;
        return server;
    }

    /// <summary>The server process under the descriptor limit, its output collected (and shown to <paramref name="onLine"/>).</summary>
    private static ExternalServer Launch(int openFiles, int port, string extraArgs, string? command, string prelude, Action<string>? onLine)
    {
        command ??= $"dotnet '{Path.Combine(AppContext.BaseDirectory, "RedisClone.dll")}'";
        var psi = new ProcessStartInfo("bash")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        psi.ArgumentList.Add("-c");
        psi.ArgumentList.Add($"{prelude}ulimit -n {openFiles} && exec {command} --port {port} --bind 127.0.0.1 {extraArgs}");
        var server = new ExternalServer(Process.Start(psi)!);
        void OnLine(string? line)
        {
            if (line == null) return;
            lock (server._output) server._output.AppendLine(line);
            onLine?.Invoke(line);
        }
        server._process.OutputDataReceived += (_, e) => OnLine(e.Data);
        server._process.ErrorDataReceived += (_, e) => OnLine(e.Data);
        server._process.BeginOutputReadLine();
        server._process.BeginErrorReadLine();
        return server;
    }

    /// <summary>
    /// Starts the server on <paramref name="port"/> with <paramref name="configFile"/> as its
    /// configuration file (so CONFIG REWRITE has a file to write) and waits for its ready line; a
    /// server restarted on the port it had keeps its address (a master that comes back).
    /// </summary>
    public static ExternalServer StartOnPort(int port, string configFile, string extraArgs = "", int timeoutMs = 60_000)
    {
        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        string command = $"dotnet '{Path.Combine(AppContext.BaseDirectory, "RedisClone.dll")}' '{configFile}'";
        var server = Launch(10240, port, extraArgs, command, "", line =>
        {
            if (ReadyLine().IsMatch(line)) ready.TrySetResult();
        });
        if (!ready.Task.Wait(timeoutMs) || server._process.HasExited)
        {
            server.Dispose();
            throw new TimeoutException($"the server did not start in {timeoutMs} ms:\n{server.Output}");
        }
        server.Port = port;
        return server;
    }

    /// <summary>
    /// Starts a server on a free port and returns as soon as it accepts connections, before it is
    /// ready (while it loads its data, say), instead of waiting for its ready line.
    /// </summary>
    public static ExternalServer StartListening(int openFiles, string extraArgs = "", int timeoutMs = 60_000)
    {
        int port = ReferenceRedis.FreePort();
        var server = Launch(openFiles, port, extraArgs, null, "", null);
        server.Port = port;
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < timeoutMs && !server._process.HasExited)
        {
            try
            {
                using var probe = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork,
                    System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
                probe.Connect(IPAddress.Loopback, port);
                return server;
            }
            catch (System.Net.Sockets.SocketException)
            {
                Thread.Sleep(20);
            }
        }
        server.Dispose();
        throw new TimeoutException($"the server did not listen in {timeoutMs} ms:\n{server.Output}");
    }

    public RespClient Connect(int timeoutMs = 10_000) => new(new IPEndPoint(IPAddress.Loopback, Port), timeoutMs);

    /// <summary>CPU time (user + system) the process has used, from /proc/pid/stat.</summary>
    public double CpuSeconds()
    {
        string stat = File.ReadAllText($"/proc/{Pid}/stat");
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after "pid (comm) ".
        return (long.Parse(fields[11]) + long.Parse(fields[12])) / 100.0; // USER_HZ is 100 on Linux
    }

    /// <summary>Descriptors the process has open.</summary>
    public int OpenDescriptors() => Directory.GetFiles($"/proc/{Pid}/fd").Length;

    public bool HasExited => _process.HasExited;

    /// <summary>Sends <paramref name="signal"/> (2 SIGINT, 15 SIGTERM...) to the server process.</summary>
    public void Signal(int signal)
    {
        if (kill(Pid, signal) != 0) throw new InvalidOperationException($"kill({Pid}, {signal}) failed: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
    }

    /// <summary>The exit status once the process has ended within <paramref name="timeoutMs"/>; throws when it has not.</summary>
    public int WaitForExit(int timeoutMs = 30_000)
    {
        if (!_process.WaitForExit(timeoutMs)) throw new TimeoutException($"the server did not exit in {timeoutMs} ms:\n{Output}");
        _process.WaitForExit(); // the output read to its end
        return _process.ExitCode;
    }

    /// <summary>Waits until the output has a line containing <paramref name="text"/>.</summary>
    public void WaitForOutput(string text, int timeoutMs = 30_000)
    {
        var sw = Stopwatch.StartNew();
        while (!Output.Contains(text, StringComparison.Ordinal))
        {
            if (sw.ElapsedMilliseconds > timeoutMs) throw new TimeoutException($"no \"{text}\" in the output after {timeoutMs} ms:\n{Output}");
            Thread.Sleep(5);
        }
    }

    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    private static extern int kill(int pid, int sig);

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill();
                _process.WaitForExit(10_000);
            }
        }
        catch (InvalidOperationException)
        {
        }
        _process.Dispose();
    }

    [GeneratedRegex(@"Running mode=standalone, port=(\d+)\.")]
    private static partial Regex ReadyLine();
}
