#!/bin/sh
# A cluster on one machine: PostgreSQL, N `invoices serve` on one database, nginx round-robin
# in front of them without stickiness (no ip_hash, no cookie: any server may take any request).
#
#   scripts/cluster.sh start    starts what is not running, waits until the URL answers, prints it
#   scripts/cluster.sh stop     stops everything it started, by the PIDs in its folder
#   scripts/cluster.sh status   says what runs
#   (start-postgresql and stop-web: the database alone, the web tier alone, for the benchmarks)
#
# Settings (environment), so that tests can run a cluster of their own beside the user's:
#   CLUSTER_DIR       the folder for data, PID files and logs   (.build-cluster)
#   CLUSTER_PG_PORT   PostgreSQL's loopback port                 (5433)
#   CLUSTER_PORTS     the servers' ports, one server per port    ("8081 8082 8083")
#   CLUSTER_LB_PORT   nginx's port: the URL to open              (8080)
#   CLUSTER_INVOICES  the invoices executable                    (the debug build, as `make run`)
#   CLUSTER_SERVE_ARGS more `invoices serve` options, e.g. --no-demo-data
#   CLUSTER_PG_FAST   1: no fsync (tests and benchmarks; a crash of the machine may lose data)
#
# initdb and postgres refuse to run as root: as root they run as Debian's postgres user, in a
# data folder it owns. Every process is stopped by the PID this script wrote when it started it.
set -eu

DIR=${CLUSTER_DIR:-.build-cluster}
PG_PORT=${CLUSTER_PG_PORT:-5433}
PORTS=${CLUSTER_PORTS:-"8081 8082 8083"}
LB_PORT=${CLUSTER_LB_PORT:-8080}
SERVE_ARGS=${CLUSTER_SERVE_ARGS:-}
DATABASE=invoices
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

say() { echo "cluster: $*"; }
fail() { echo "cluster: $*" >&2; exit 1; }

# The newest installed PostgreSQL's programs.
pg_bin() {
    for version in $(ls /usr/lib/postgresql 2>/dev/null | sort -n -r); do
        if [ -x "/usr/lib/postgresql/$version/bin/postgres" ]; then echo "/usr/lib/postgresql/$version/bin"; return; fi
    done
    fail "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres); make cluster installs Debian's postgresql."
}

# Runs a PostgreSQL program as the postgres user when this is root.
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# The PID in a file, when that process still runs (a zombie nobody reaped yet does not).
live_pid() {
    [ -f "$1" ] || return 1
    pid=$(head -n 1 "$1" 2>/dev/null)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    grep -q ') Z ' "/proc/$pid/stat" 2>/dev/null && return 1
    echo "$pid"
}

# Waits (up to $2 seconds) until the command $1 succeeds.
wait_for() {
    tries=$(($2 * 10))
    while [ $tries -gt 0 ]; do
        if eval "$1"; then return 0; fi
        sleep 0.1
        tries=$((tries - 1))
    done
    return 1
}

answers() { curl -s -o /dev/null --max-time 2 "$1"; }

start_postgresql() {
    bin=$(pg_bin)
    data="$DIR/postgresql"
    if live_pid "$DIR/postgresql.pid" >/dev/null; then return; fi
    if [ ! -f "$data/PG_VERSION" ]; then
        mkdir -p "$data"
        [ "$(id -u)" = 0 ] && chown postgres:postgres "$data"
        chmod 700 "$data"
        as_pg "$bin/initdb" -D "$data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 \
            || fail "initdb failed; see $DIR/initdb.log"
    fi
    fast=""
    [ "${CLUSTER_PG_FAST:-0}" = 1 ] && fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    touch "$DIR/postgresql.log"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR/postgresql.log"
    # A simple command, not a function: a function sent to the background is a subshell that
    # waits for the server, holding this script's stdout open (and whoever reads it waiting).
    runner=""
    [ "$(id -u)" = 0 ] && runner="runuser -u postgres --"
    # shellcheck disable=SC2086
    $runner "$bin/postgres" -D "$data" -p "$PG_PORT" -h 127.0.0.1 -k "$data" -c max_connections=300 $fast \
        >>"$DIR/postgresql.log" 2>&1 </dev/null &
    # The postmaster's own PID is the first line of its pid file (runuser's is not it).
    wait_for "[ \"\$(sed -n 8p '$data/postmaster.pid' 2>/dev/null | tr -d ' ')\" = ready ]" 30 \
        || fail "PostgreSQL did not start; see $DIR/postgresql.log"
    head -n 1 "$data/postmaster.pid" >"$DIR/postgresql.pid"
    if ! as_pg "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'" | grep -q 1; then
        as_pg "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$DATABASE"
    fi
    say "PostgreSQL on 127.0.0.1:$PG_PORT (PID $(cat "$DIR/postgresql.pid"), log $DIR/postgresql.log)"
}

start_servers() {
    INVOICES=${CLUSTER_INVOICES:-$(swift build --show-bin-path)/invoices}
    [ -x "$INVOICES" ] || fail "no invoices executable at $INVOICES (swift build --product invoices)"
    n=0
    for port in $PORTS; do
        n=$((n + 1))
        name="s$n"
        if live_pid "$DIR/$name.pid" >/dev/null; then continue; fi
        # shellcheck disable=SC2086
        "$INVOICES" serve --store "postgresql://postgres@127.0.0.1:$PG_PORT/$DATABASE" --host 127.0.0.1 \
            --port "$port" --name "$name" --trusted-proxy 127.0.0.1 $SERVE_ARGS >>"$DIR/$name.log" 2>&1 </dev/null &
        echo $! >"$DIR/$name.pid"
    done
    n=0
    for port in $PORTS; do
        n=$((n + 1))
        # The first start fills an empty database with demo data, under an advisory lock.
        wait_for "answers http://127.0.0.1:$port/clients || ! live_pid '$DIR/s$n.pid' >/dev/null" 300
        live_pid "$DIR/s$n.pid" >/dev/null || fail "server s$n ended; see $DIR/s$n.log"
        answers "http://127.0.0.1:$port/clients" || fail "server s$n does not answer; see $DIR/s$n.log"
        say "server s$n on 127.0.0.1:$port (PID $(cat "$DIR/s$n.pid"), log $DIR/s$n.log)"
    done
}

write_nginx_conf() {
    mkdir -p "$DIR/nginx"
    user=""
    if [ "$(id -u)" = 0 ]; then
        # Workers do not run as root; they write request bodies under nginx/.
        user="user www-data;"
        chown www-data "$DIR/nginx" 2>/dev/null || user="user root;"
    fi
    upstreams=""
    for port in $PORTS; do
        upstreams="$upstreams        server 127.0.0.1:$port max_fails=1 fail_timeout=2s;
"
    done
    cat >"$DIR/nginx.conf" <<EOF
# Written by scripts/cluster.sh. Round-robin, no stickiness: every request may go to any server.
$user
daemon off;
pid $DIR/nginx.pid;
worker_processes auto;
error_log $DIR/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $DIR/nginx/body;
    proxy_temp_path $DIR/nginx/proxy;
    fastcgi_temp_path $DIR/nginx/fastcgi;
    uwsgi_temp_path $DIR/nginx/uwsgi;
    scgi_temp_path $DIR/nginx/scgi;
    client_max_body_size 64m;
    upstream invoices {
$upstreams    }
    server {
        listen 127.0.0.1:$LB_PORT;
        location / {
            proxy_pass http://invoices;
            # A new connection per request, no idle ones kept: a POST on a kept connection to a
            # server that was just killed counts as sent and would not be passed on (502),
            # while a refused connection is passed to the next server.
            proxy_http_version 1.1;
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_set_header X-Forwarded-Host \$http_host;
            # A server that is down (refused, reset before an answer) passes the request to the
            # next. A POST that reached a server is never sent twice (no non_idempotent), and a
            # 503 (the database is down) reaches the visitor as it is.
            proxy_next_upstream error timeout;
            proxy_connect_timeout 2s;
            proxy_read_timeout 1h;
            # The inspector's live pages stream.
            proxy_buffering off;
        }
    }
}
EOF
}

start_nginx() {
    if live_pid "$DIR/nginx.pid" >/dev/null; then return; fi
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || fail "nginx is not installed; make cluster installs it."
    write_nginx_conf
    nginx=$(command -v nginx || echo /usr/sbin/nginx)
    "$nginx" -t -q -c "$DIR/nginx.conf" -p "$DIR/nginx" -e "$DIR/nginx-error.log" >>"$DIR/nginx-error.log" 2>&1 \
        || fail "nginx refused its configuration; see $DIR/nginx-error.log"
    "$nginx" -c "$DIR/nginx.conf" -p "$DIR/nginx" -e "$DIR/nginx-error.log" >>"$DIR/nginx-error.log" 2>&1 </dev/null &
    wait_for "answers http://127.0.0.1:$LB_PORT/clients" 30 || fail "nginx does not answer; see $DIR/nginx-error.log"
    # nginx writes its master's PID itself (the one started above: daemon off).
    wait_for "[ -s '$DIR/nginx.pid' ]" 5 || fail "nginx wrote no PID file"
}

# Sends a signal to the process named in a PID file; prints its PID.
signal_pid_file() {
    pid=$(live_pid "$1") || return 1
    kill -s "$2" "$pid" && echo "$pid"
}

# Waits up to 15 s for the process named in a PID file to end, then kill -9; removes the file.
await_pid_file() {
    file=$1 label=$2 pid=$3
    tries=150
    while live_pid "$file" >/dev/null && [ $tries -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
    if live_pid "$file" >/dev/null; then kill -s KILL "$pid"; say "$label did not stop in 15 s: killed"; fi
    say "$label stopped (PID $pid)"
    rm -f "$file"
}

start() {
    start_postgresql
    start_servers
    start_nginx
    say "nginx on 127.0.0.1:$LB_PORT (PID $(cat "$DIR/nginx.pid"), round-robin over: $PORTS)"
    echo "http://127.0.0.1:$LB_PORT/clients"
}

# nginx, then the servers (together: each finishes its requests and closes its connections).
stop_web() {
    if pid=$(signal_pid_file "$DIR/nginx.pid" QUIT); then await_pid_file "$DIR/nginx.pid" nginx "$pid"; fi
    rm -f "$DIR/nginx.pid"
    stopping=""
    for file in "$DIR"/s*.pid; do
        [ -e "$file" ] || continue
        if pid=$(signal_pid_file "$file" TERM); then stopping="$stopping $file:$pid"; else rm -f "$file"; fi
    done
    for entry in $stopping; do
        file=${entry%:*}
        await_pid_file "$file" "server $(basename "$file" .pid)" "${entry##*:}"
    done
}

stop() {
    stop_web
    # SIGINT: PostgreSQL's fast shutdown (rolls back open transactions, then checkpoints).
    if pid=$(signal_pid_file "$DIR/postgresql.pid" INT); then await_pid_file "$DIR/postgresql.pid" PostgreSQL "$pid"; fi
    rm -f "$DIR/postgresql.pid"
}

status() {
    for file in "$DIR/postgresql.pid" "$DIR"/s*.pid "$DIR/nginx.pid"; do
        [ -e "$file" ] || continue
        name=$(basename "$file" .pid)
        if pid=$(live_pid "$file"); then say "$name running (PID $pid)"; else say "$name not running"; fi
    done
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
# For the benchmarks: the database alone, and the web tier stopped with the database left up.
start-postgresql) start_postgresql ;;
stop-web) stop_web ;;
*) fail "usage: $0 start|stop|status|start-postgresql|stop-web" ;;
esac
