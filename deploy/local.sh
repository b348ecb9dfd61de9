#!/usr/bin/env bash
# The whole setup on one host: redis-server, REPLICAS app processes sharing it (ROOM_STORE), and
# nginx on 127.0.0.1:PORT in front of them with sticky sessions. Runs in the foreground; SIGTERM
# or Ctrl-C stops everything it started.
#
#   bash deploy/local.sh REPLICAS PORT        e.g.  bash deploy/local.sh 3 8500
#
# Needs Debian's redis-server and nginx (apt-get install -y redis-server nginx) and the app's venv
# (.venv, from the README's first command). Several hosts: README, "Several app processes".
#
# Redis keeps the rooms with AOF persistence (appendonly yes, appendfsync everysec) in
# REDIS_DATA (default: data/redis in the repository), so a Redis restart costs at most the last
# second of changes, and a class goes on. REDIS_PASSWORD, if set, is required of every client
# (it goes into a config file readable by this user only, never onto a command line).
set -euo pipefail
replicas=${1:?usage: deploy/local.sh REPLICAS PORT}
port=${2:?usage: deploy/local.sh REPLICAS PORT}
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$root/.venv/bin/python}
run=$(mktemp -d "${TMPDIR:-/tmp}/self-attention-deploy.XXXXXX")
pids=()

stop() {
  trap - TERM INT EXIT
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$run"
}
trap 'stop; exit 0' TERM INT
trap stop EXIT

free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for URL: until it answers, at most 60 s
  for _ in $(seq 300); do
    if "$python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)" "$1" 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  echo "no answer from $1" >&2; return 1
}

redis_port=${REDIS_PORT:-$(free_port)}
redis_data=${REDIS_DATA:-$root/data/redis}
mkdir -p "$redis_data"
(
  umask 077
  {
    echo "port $redis_port"
    echo "bind 127.0.0.1"
    echo "dir $redis_data"
    echo "appendonly yes"
    echo "appendfsync everysec"
    echo 'save ""'
    if [ -n "${REDIS_PASSWORD:-}" ]; then  # double-quoted, as redis.conf reads it
      "$python" -c 'import sys; p = sys.argv[1].replace("\\", "\\\\").replace("\"", "\\\""); print(f"requirepass \"{p}\"")' "$REDIS_PASSWORD"
    fi
  } > "$run/redis.conf"
)
redis-server "$run/redis.conf" > "$run/redis.log" 2>&1 &
redis_pid=$!
pids+=($redis_pid)
if [ -n "${REDIS_PASSWORD:-}" ]; then
  auth=":$("$python" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$REDIS_PASSWORD")@"
else
  auth=""
fi
export ROOM_STORE="redis://${auth}127.0.0.1:$redis_port/0"
echo "redis-server on 127.0.0.1:$redis_port, AOF in $redis_data${auth:+, with a password}"

upstreams=""
for i in $(seq "$replicas"); do
  replica_port=$(free_port)
  # the README's server, started where the README starts it (the repository, whose
  # .streamlit/config.toml holds the production settings); each on its own loopback port
  (cd "$root" && exec "$python" -m streamlit run serve.py --server.port="$replica_port" \
    --server.address=127.0.0.1) > "$run/replica-$i.log" 2>&1 &
  pids+=($!)
  echo "replica $i: pid $! on 127.0.0.1:$replica_port"
  upstreams+="        server 127.0.0.1:$replica_port max_fails=1 fail_timeout=5s;"$'\n'
done
# each replica's /healthz answers once its room store works (serve.py)
for upstream in $(echo "$upstreams" | grep -o '127.0.0.1:[0-9]*'); do wait_for "http://$upstream/healthz"; done

mkdir -p "$run/body" "$run/proxy" "$run/fastcgi" "$run/uwsgi" "$run/scgi"
"$python" - "$root/deploy/nginx.conf.template" "$run/nginx.conf" "$run" "127.0.0.1:$port" "$upstreams" <<'PY'
import sys
template, out, run, listen, upstreams = sys.argv[1:]
text = open(template).read().replace("@RUN@", run).replace("@LISTEN@", listen)
open(out, "w").write(text.replace("@UPSTREAMS@", upstreams.rstrip("\n")))
PY
nginx -c "$run/nginx.conf" -p "$run" &
nginx_pid=$!
pids+=($nginx_pid)
wait_for "http://127.0.0.1:$port/_stcore/health"
echo "ready: http://127.0.0.1:$port ($replicas replicas behind nginx)"
# a replica may stop (its learners reconnect to another); without redis or nginx nothing works
wait -n "$redis_pid" "$nginx_pid" || true
echo "redis-server or nginx stopped; stopping the rest" >&2
