#!/bin/sh
# The image's entrypoint. Arguments are read as the official redis image reads them:
#   (none)                      the server with the container defaults below
#   --option value ...          the server with these options after the defaults (so they win)
#   /path/to/file.conf [--option value ...]
#                               the server reading that file first
#   anything else               run as a command (sh, RedisClone --ping, ...)
# Container defaults: listen on every interface (the container's own network is the boundary; a
# port is reachable from outside only when published) and no protected mode. A configuration file
# that sets `bind` or `protected-mode` itself keeps its own value.
set -e

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
    set -- RedisClone "$@"
fi

if [ "$1" = RedisClone ] && [ "${2:-}" != "--ping" ]; then
    shift
    conf=
    if [ "$#" -gt 0 ] && [ "${1#-}" = "$1" ]; then
        conf=$1
        shift
    fi
    sets() { [ -n "$conf" ] && grep -Eiq "^[[:space:]]*$1([[:space:]]|\$)" "$conf" 2>/dev/null; }
    sets protected-mode || set -- --protected-mode no "$@"
    sets bind || set -- --bind 0.0.0.0 "$@"
    if [ -n "$conf" ]; then set -- "$conf" "$@"; fi
    set -- RedisClone "$@"

    # Files the server writes (dump.rdb, the AOF) readable by its user only, unless the caller
    # chose a umask other than the usual 022.
    if [ "$(umask)" = 0022 ]; then umask 0077; fi

    # Started as root (docker run --user 0): hand /data to the server's user, then drop to it.
    if [ "$(id -u)" = 0 ]; then
        find /data \! -user redisclone -exec chown redisclone:redisclone '{}' +
        exec setpriv --reuid=redisclone --regid=redisclone --init-groups "$@"
    fi
fi

exec "$@"
