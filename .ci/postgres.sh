# shellcheck shell=bash
# Sourced by .ci/run: install Debian's PostgreSQL (unless installed already), start a throwaway
# cluster on a free loopback port (data and socket in a temporary directory, so it never
# touches a system cluster), create a test database and export DUYUN_TEST_POSTGRES_URL for the
# store and server tests.
# Call duyun_pg_stop when done (.ci/run does it on EXIT). Works as root on a fresh Debian machine
# with no stdin (CI=true); as another user it needs sudo for apt-get only.

duyun_pg_as() {
    # run a PostgreSQL tool as the cluster's owner: root may not run the server itself
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

duyun_pg_start() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    export DEBIAN_FRONTEND=noninteractive
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        # not installed by the caller (.ci/run installs it with its other packages)
        $sudo apt-get update -q </dev/null
        $sudo apt-get install -y -q postgresql </dev/null
    fi
    DUYUN_PG_BIN=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)
    if [ -z "$DUYUN_PG_BIN" ] || [ ! -x "$DUYUN_PG_BIN/initdb" ]; then
        echo "postgres.sh: no initdb under /usr/lib/postgresql after installing postgresql" >&2
        return 1
    fi
    DUYUN_PG_DIR=$(mktemp -d /tmp/duyun-pg.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$DUYUN_PG_DIR"
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    duyun_pg_as "$DUYUN_PG_BIN/initdb" -D "$DUYUN_PG_DIR/data" -U postgres -A trust \
        -E UTF8 --locale=C.UTF-8 --no-sync >"$DUYUN_PG_DIR/initdb.log"
    duyun_pg_as "$DUYUN_PG_BIN/pg_ctl" -D "$DUYUN_PG_DIR/data" -l "$DUYUN_PG_DIR/server.log" -w \
        -o "-p $port -k $DUYUN_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
        start >/dev/null
    duyun_pg_as "$DUYUN_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres duyun_test
    export DUYUN_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$port/duyun_test"
    echo "PostgreSQL for tests: $DUYUN_TEST_POSTGRES_URL"
}

duyun_pg_stop() {
    if [ -n "${DUYUN_PG_DIR:-}" ] && [ -d "$DUYUN_PG_DIR/data" ]; then
        duyun_pg_as "$DUYUN_PG_BIN/pg_ctl" -D "$DUYUN_PG_DIR/data" -m fast -w stop >/dev/null || true
        rm -rf "$DUYUN_PG_DIR"
    fi
}
