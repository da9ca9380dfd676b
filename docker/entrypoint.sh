#!/bin/sh
# The image's entrypoint. Arguments are read as the official redis image reads them:
#   (none)                      the server with the container defaults below
#   --option value ...          the server with these options after the defaults (so they win)
#   /path/to/file.conf [--option value ...]
#                               the server reading that file first
#   -v, --version, -h, --help   what the server prints for them (no defaults added)
#   anything else               run as a command (sh, redis-cli, RedisClone --ping, ...)
# Container defaults: listen on every interface (the container's own network is the boundary; a
# port is reachable from outside only when published) and no protected mode. A configuration file
# that sets `bind` or `protected-mode` itself keeps its own value.
#
# Started as root (the image's default, as the official image's), the server's files are handed to
# its user and the server runs as that user; started with --user, it runs as that user and /data
# must already be writable by it.
set -e

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
    set -- RedisClone "$@"
fi

if [ "$1" = RedisClone ]; then
    case "${2:-}" in
        -v|--version|-h|--help|--ping|--test-memory|--check-system)
            # Not a server start: the server's own answer, as `redis-server -v` gives it.
            exec "$@" ;;
    esac

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

    # Started as root: hand the working directory (/data, also a root-owned host directory mounted
    # there) to the server's user, only what it does not own yet, then drop to that user (setpriv,
    # from util-linux, as the official image uses gosu). The server stays PID 1: signals reach it.
    if [ "$(id -u)" = 0 ]; then
        find . \! -user redisclone -exec chown redisclone '{}' +
        exec setpriv --reuid=redisclone --regid=redisclone --init-groups "$@"
    fi
fi

exec "$@"
