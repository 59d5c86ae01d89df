#!/usr/bin/env bash
# replaybudget.sh OUT: recording's cost through real SSH sessions (issue 33). It runs the
# game twice at N (1000) sessions all walking at 2 keys a second, a fresh server each
# time, once recording replays (-replay-store-mb 200) and once not (-replay-store-mb 0),
# and writes each run's load report (OUT/on.json, OUT/off.json), the server's bytes
# written to disk (/proc/PID/io write_bytes) and its anonymous and file-backed resident
# memory (RssAnon, RssFile: the database is mapped) every 5 s (OUT/on.io, OUT/off.io:
# seconds since the start, bytes, kB, kB; OUT/NAME.io.end: the last before the load
# tool's end), the database's size at the end, and the chunks' bytes a knight a second
# (store's TestReplayDataRate reads the file: the chunks begun in the 40 s before the
# last 10 s). With PROFILE=1, a 30 s CPU profile of each server after the ramp
# (OUT/on.pprof, OUT/off.pprof). RUNS=on (or off) runs one of the two. Linux only; needs
# jq (and curl for PROFILE).
set -euo pipefail

OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
N=${N:-1000}
DURATION=${DURATION:-60s}
RAMP=${RAMP:-100s}
ADDR=${ADDR:-127.0.0.1:22442}
METRICS=${METRICS:-127.0.0.1:22443}
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
go build -o "$OUT/bin/orthanc-ssh" ./cmd/orthanc-ssh
go build -o "$OUT/bin/orthanc-load" ./cmd/orthanc-load

run() {
	local name=$1 mb=$2 pid sampler t0
	rm -rf "$OUT/data-$name" && mkdir -p "$OUT/data-$name"
	"$OUT/bin/orthanc-ssh" -addr "$ADDR" -data "$OUT/data-$name" -replay-store-mb "$mb" \
		-max-sessions 5000 -max-per-ip 5000 -max-handshakes 5000 -max-handshakes-per-ip 5000 \
		-early-drop-at 5000 -new-knights-per-hour 1000000 -metrics-addr "$METRICS" 2>"$OUT/$name.log" &
	pid=$!
	t0=$(date +%s)
	(while kill -0 "$pid" 2>/dev/null; do
		echo "$(($(date +%s) - t0)) $(awk '/^write_bytes/ {print $2}' "/proc/$pid/io" 2>/dev/null)" \
			"$(awk '/^(RssAnon|RssFile):/ {printf "%s ", $2}' "/proc/$pid/status" 2>/dev/null)"
		sleep 5
	done) >"$OUT/$name.io" &
	sampler=$!
	if [ -n "${PROFILE:-}" ]; then
		(sleep $((${RAMP%s} + 12)) && curl -s -o "$OUT/$name.pprof" "http://$METRICS/debug/pprof/profile?seconds=30") &
	fi
	sleep 2
	echo "== $name: n=$N all walking, -replay-store-mb $mb" >&2
	"$OUT/bin/orthanc-load" -addr "$ADDR" -mode game -n "$N" -active "$N" -rate 2 -ramp "$RAMP" \
		-duration "$DURATION" -walk-timeout 60s -pid "$pid" -quiet -json >"$OUT/$name.json" || true
	tail -1 "$OUT/$name.io" >"$OUT/$name.io.end"
	du -b "$OUT/data-$name"/*.db >"$OUT/$name.db" 2>/dev/null || true
	kill -TERM "$pid"
	wait "$pid" || true
	kill "$sampler" 2>/dev/null || true
	if [ "$mb" != 0 ]; then
		ORTHANC_REPLAY_DB=$(ls "$OUT/data-$name"/*.db) ORTHANC_REPLAY_KNIGHTS=$N \
			go test -count=1 -run TestReplayDataRate -v ./store | grep 'B/s' >&2 || true
	fi
	jq -r '"   established \(.established) failed \(.failed) dropped \(.dropped), server CPU \(.server.cpu_percent)%, RSS/session \(.server.rss_per_session_kb) KB, load avg \(.load_average)"' "$OUT/$name.json" >&2
}

for r in ${RUNS:-on off}; do
	case $r in
	on) run on 200 ;;
	off) run off 0 ;;
	esac
done
echo "reports in $OUT" >&2
