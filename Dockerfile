# RedisClone's container image: the SDK stage publishes a self-contained server, the runtime stage
# is Microsoft's runtime-deps image (a Linux base with the libraries .NET needs, no .NET itself).
#
#   docker build -t redisclone .
#   docker run -d -p 6379:6379 -v redisclone-data:/data redisclone [config file] [--option value ...]
#
# Build arguments (all optional; the defaults are the official images and nuget.org):
#   SDK_IMAGE, RUNTIME_IMAGE   other bases (a mirror, a pinned digest, a local copy)
#   PUBLISH_OPTIONS            extra `dotnet publish` options
# Build secrets (optional; for a network that needs them, e.g. behind a TLS-inspecting proxy):
#   --secret id=nuget_config,src=/path/NuGet.Config   package sources for the restore
#   --secret id=ca_bundle,src=/path/ca-certificates.crt   CA certificates the restore trusts
ARG SDK_IMAGE=mcr.microsoft.com/dotnet/sdk:10.0
ARG RUNTIME_IMAGE=mcr.microsoft.com/dotnet/runtime-deps:10.0

FROM ${SDK_IMAGE} AS build
# NativeAOT: one native binary, compiled ahead of time, so the server runs at full speed from its
# first request with no JIT, starts in about 0.1 s and idles at about 12 MB (bench/memtier/warmup.py:
# against a self-contained ReadyToRun publish, 1.0-1.1x the steady CPU per request on the first
# benchmark run instead of 3.2-3.6x, or 1.2x with tiers off but a slower steady state; 11.5 MB idle
# instead of 43-46 MB). Its linker step needs clang and zlib's headers, which the SDK image lacks.
# PUBLISH_OPTIONS="-p:PublishAot=false -p:SelfContained=true" builds a JIT server instead (the
# project turns tiered compilation off, so it too runs at full speed from the start).
ARG PUBLISH_OPTIONS="-p:PublishAot=true"
RUN if ! command -v clang >/dev/null 2>&1; then \
        apt-get update && apt-get install -y --no-install-recommends clang zlib1g-dev \
        && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /src
# The project file alone first: the restore layer is reused until a package reference changes.
COPY src/Packaging.props src/
COPY src/RedisClone/RedisClone.csproj src/RedisClone/
RUN --mount=type=secret,id=nuget_config --mount=type=secret,id=ca_bundle \
    set -eu; \
    case "$(uname -m)" in \
        x86_64) rid=linux-x64 ;; \
        aarch64) rid=linux-arm64 ;; \
        *) echo "no .NET runtime identifier for $(uname -m)" >&2; exit 1 ;; \
    esac; \
    echo "$rid" > /src/rid; \
    if [ -s /run/secrets/ca_bundle ]; then export SSL_CERT_FILE=/run/secrets/ca_bundle; fi; \
    if [ -s /run/secrets/nuget_config ]; then set -- --configfile /run/secrets/nuget_config; else set --; fi; \
    dotnet restore src/RedisClone/RedisClone.csproj -r "$rid" $PUBLISH_OPTIONS "$@"
COPY src/RedisClone/ src/RedisClone/
# Only what runs goes to /app: no API documentation (RedisClone.xml, for the library package) and no
# symbol files (*.pdb; NativeAOT's stripped symbols, *.dbg).
RUN dotnet publish src/RedisClone/RedisClone.csproj -c Release -r "$(cat /src/rid)" --no-restore \
        -p:PublishDocumentationFile=false -p:PublishReferencesDocumentationFiles=false \
        $PUBLISH_OPTIONS -o /app \
    && rm -f /app/*.pdb /app/*.dbg /app/*.xml

FROM ${RUNTIME_IMAGE}
# The server runs as this user (uid/gid 999, as the official redis image); /data is its working
# directory, where dump.rdb and the AOF go. The container starts as root, as the official image's
# does: the entrypoint hands /data to this user (a host directory mounted there may be root's) and
# drops to it with setpriv (util-linux, in every Debian and Ubuntu base).
RUN groupadd --system --gid 999 redisclone \
    && useradd --system --uid 999 --gid redisclone --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin redisclone \
    && mkdir /data && chown redisclone:redisclone /data
# redis-cli (and redis-benchmark) from the distribution's redis-tools, for `docker exec ... redis-cli`.
# After the user above, so that the `redis` user its package script adds takes another id.
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-tools \
    && apt-get clean && rm -rf /var/lib/apt/lists/* \
    && command -v setpriv >/dev/null
COPY --from=build /app /app
COPY docker/entrypoint.sh /usr/local/bin/redisclone-entrypoint
# Workstation, concurrent GC: the project's own choice, written here so that `docker run -e` shows
# and changes it. Server GC keeps a heap and a gen0 budget per core, so its memory grows with the
# host's core count, which the image cannot know (on 2 cores both used 44 MB idle and 98 MB after
# 300,000 SETs of 100 bytes). No GCHeapAffinitizeMask (server GC only) and no GCgen0size: commands
# allocate nothing on the hot path, so collections are rare either way. No GCHeapHardLimit: under
# a memory limit (--memory) .NET caps its heap at 75% of it by itself; maxmemory caps the dataset.
ENV PATH=/app:$PATH \
    DOTNET_gcServer=0 \
    DOTNET_gcConcurrent=1
WORKDIR /data
VOLUME /data
EXPOSE 6379
# The server asks itself (REDISCLI_AUTH holds the password, if any); unlike `redis-cli ping`, the
# probe fails on any reply but PONG (-LOADING, -NOAUTH). A probe is a process start (a few
# milliseconds of CPU natively, about 0.15 s as a JIT .NET process).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["RedisClone", "--ping"]
ENTRYPOINT ["redisclone-entrypoint"]
CMD ["RedisClone"]
