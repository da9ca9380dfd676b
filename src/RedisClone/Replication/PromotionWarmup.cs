using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using System.Runtime.CompilerServices;
using RedisClone.Commands;

namespace RedisClone.Replication;

/// <summary>
/// With tiered compilation off (see RedisClone.csproj) a method is compiled, optimized, at its
/// first call. A replica's promotion (REPLICAOF NO ONE from Sentinel or an operator, or the target
/// side of FAILOVER) runs code nothing has called before, so the first one of a process compiled its
/// whole path while clients waited for the new master: 56-174 ms against redis-server's 1 ms. A
/// replica compiles that code ahead, once per process, on a pool thread once it follows a master.
/// A NativeAOT build has nothing to compile and skips it.
/// </summary>
internal static class PromotionWarmup
{
    private static int _started;

    public static void Start()
    {
        if (!RuntimeFeature.IsDynamicCodeSupported || Interlocked.Exchange(ref _started, 1) != 0) return;
        ThreadPool.UnsafeQueueUserWorkItem(static _ => PrepareAll(), null);
    }

    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "JIT builds only; nothing is trimmed there")]
    private static void PrepareAll()
    {
        Prepare(typeof(ReplicaRole));
        Prepare(typeof(ReplicaCommands));
        Prepare(typeof(ReplicationState));
        Prepare(typeof(ReplicationMaster));
        Prepare(typeof(ReplicationBacklog));
        Prepare(typeof(ReplicaLink));
        Prepare(typeof(FullSync));
        Prepare(typeof(Failover));
        Prepare(typeof(MasterLink));
        Prepare(typeof(ConnectionCommands));
    }

    // Runs only with a JIT (IsDynamicCodeSupported): a trimmed NativeAOT build never gets here.
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "JIT builds only; nothing is trimmed there")]
    [UnconditionalSuppressMessage("Trimming", "IL2072", Justification = "JIT builds only; nothing is trimmed there")]
    private static void Prepare([DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicMethods | DynamicallyAccessedMemberTypes.NonPublicMethods | DynamicallyAccessedMemberTypes.PublicNestedTypes | DynamicallyAccessedMemberTypes.NonPublicNestedTypes)] Type type, int depth = 0)
    {
        const BindingFlags All = BindingFlags.DeclaredOnly | BindingFlags.Instance | BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic;
        foreach (var method in type.GetMethods(All))
        {
            if (method.IsAbstract || method.ContainsGenericParameters) continue;
            try
            {
                RuntimeHelpers.PrepareMethod(method.MethodHandle);
            }
            catch (Exception ex) when (ex is ArgumentException or NotSupportedException or InvalidOperationException or TypeLoadException)
            {
                // not preparable ahead (it is compiled at its first call, as before)
            }
        }
        // Lambdas' closures and async methods' state machines are nested types.
        if (depth < 2 && !type.ContainsGenericParameters)
            foreach (var nested in type.GetNestedTypes(All))
                if (!nested.ContainsGenericParameters) Prepare(nested, depth + 1);
    }
}
