#!/usr/bin/env bash
# webbudget.sh OUT: browsers' sessions against SSH's (issue 45), through the real server.
# For each N of NS (200 1000) it runs, all walking at 2 keys a second, a fresh server a
# run: N SSH sessions alone (ssh-N), N browsers alone on the play page's socket (web-N),
# and half of each in one server (mix-N). Per-session CPU and memory come from the runs
# of one kind alone (/proc of the server, as the load tool reads it); the mix gives both
# kinds' latency and bytes a frame in one process. It writes each run's load report
# (OUT/NAME.json) and server log, and OUT/table.md: a row a run, the browsers ÷ SSH ratios
# at each N (goal: within 1.3× in CPU and memory a session), the mix's kinds, and the
# play page's weight. RUNS="ssh-200 web-200" runs some. With PROFILE=1, a 20 s CPU
# profile of each server after the ramp (OUT/NAME.pprof; go tool pprof -top -cum
# OUT/bin/orthanc-ssh OUT/NAME.pprof). Linux only; needs jq (and curl for PROFILE).
#
#   OUT=$(mktemp -d); cmd/orthanc-load/webbudget.sh "$OUT"
#   NS=200 DURATION=10s cmd/orthanc-load/webbudget.sh "$OUT"     # a check of the script
set -euo pipefail

OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT/bin"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
NS=${NS:-200 1000}
DURATION=${DURATION:-30s}
ADDR=${ADDR:-127.0.0.1:22452}
WEB=${WEB:-127.0.0.1:22453}
METRICS=${METRICS:-127.0.0.1:22454}
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
go build -o "$OUT/bin/orthanc-ssh" ./cmd/orthanc-ssh
go build -o "$OUT/bin/orthanc-load" ./cmd/orthanc-load

. cmd/orthanc-load/waitport.sh

# run NAME N BROWSERS: one server, N sessions all walking, BROWSERS of them on the socket.
run() {
	local name=$1 n=$2 browsers=$3 pid ramp=$(($2 / 10))s
	rm -rf "$OUT/data-$name" && mkdir -p "$OUT/data-$name"
	# Every session is from loopback: one address's limits, SSH's, guests' and the web
	# page's, are a crowd's.
	"$OUT/bin/orthanc-ssh" -addr "$ADDR" -http-addr "$WEB" -metrics-addr "$METRICS" -data "$OUT/data-$name" \
		-max-sessions 5000 -max-per-ip 5000 -max-handshakes 5000 -max-handshakes-per-ip 5000 \
		-early-drop-at 5000 -new-knights-per-hour 1000000 -max-guests 5000 -max-guests-per-ip 5000 \
		-http-max-conns 5000 -http-max-conns-per-ip 5000 -http-rate 1000 -http-burst 5000 \
		2>"$OUT/$name.log" &
	pid=$!
	wait_port "$ADDR"
	wait_port "$WEB"
	sleep 1 # let the server settle before its baseline RSS is read
	if [ -n "${PROFILE:-}" ]; then
		(sleep $((n / 10 + 5)) && curl -s -o "$OUT/$name.pprof" "http://$METRICS/debug/pprof/profile?seconds=20") &
	fi
	echo "== $name: n=$n all walking, $browsers browsers, ramp $ramp, window $DURATION (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
	"$OUT/bin/orthanc-load" -addr "$ADDR" -web "http://$WEB" -browsers "$browsers" -mode game -n "$n" -active "$n" \
		-rate 2 -ramp "$ramp" -duration "$DURATION" -walk-timeout 60s -pid "$pid" -quiet -json >"$OUT/$name.json" || true
	kill -TERM "$pid"
	wait "$pid" || true
	wait # the profile, if one was taken
	jq -r '"   established \(.established) failed \(.failed) dropped \(.dropped), p99 \(.latency.p99_ms) ms, server CPU \(.server.cpu_percent)%, RSS/session \(.server.rss_per_session_kb) KB, load avg \(.load_average)"' "$OUT/$name.json" >&2
}

for n in $NS; do
	for kind in ssh web mix; do
		name=$kind-$n
		if [ -n "${RUNS:-}" ] && [[ " $RUNS " != *" $name "* ]]; then
			continue
		fi
		case $kind in
		ssh) run "$name" "$n" 0 ;;
		web) run "$name" "$n" "$n" ;;
		mix) run "$name" "$n" $((n / 2)) ;;
		esac
	done
done

{
	echo "| run | N | browsers | est./failed/dropped | server CPU % | CPU % a session | RSS KB a session | key to frame p50 / p99 ms | B/s a walker | frames/s a walker | bytes a frame mean / p99 | load tool CPU % | load avg |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for f in "$OUT"/ssh-*.json "$OUT"/web-*.json "$OUT"/mix-*.json; do
		[ -f "$f" ] || continue
		jq -r --arg run "$(basename "$f" .json)" '
			def r1: . * 10 | round / 10;
			def r3: . * 1000 | round / 1000;
			"| \($run) | \(.n) | \(.browsers // 0) | \(.established)/\(.failed)/\(.dropped) | \(.server.cpu_percent | r1) | \(.server.cpu_percent / .established | r3) | \(.server.rss_per_session_kb | round) | \(.latency.p50_ms | r1) / \(.latency.p99_ms | r1) | \(.bytes_per_second_active.mean | round) | \(.bursts_per_second_active.mean | r1) | \(.frame_bytes.mean | round) / \(.frame_bytes.p99) | \(.load_tool.cpu_percent | round) | \(.load_average[0]) → \(.load_average[1]) |"' "$f"
	done
	echo
	echo "| N | browsers ÷ SSH: CPU a session | RSS a session | bytes a frame (mean) | bytes a second a walker | p99 |"
	echo "|---|---|---|---|---|---|"
	for n in $NS; do
		[ -f "$OUT/ssh-$n.json" ] && [ -f "$OUT/web-$n.json" ] || continue
		jq -r -s --arg n "$n" '
			def ratio(a; b): if b == 0 or b == null then "–" else "\(a / b * 100 | round / 100)×" end;
			.[0] as $s | .[1] as $w |
			"| \($n) | \(ratio($w.server.cpu_percent / $w.established; $s.server.cpu_percent / $s.established)) | \(ratio($w.server.rss_per_session_kb; $s.server.rss_per_session_kb)) | \(ratio($w.frame_bytes.mean; $s.frame_bytes.mean)) | \(ratio($w.bytes_per_second_active.mean; $s.bytes_per_second_active.mean)) | \(ratio($w.latency.p99_ms; $s.latency.p99_ms)) |"' "$OUT/ssh-$n.json" "$OUT/web-$n.json"
	done
	echo
	echo "| mixed run, kind | sessions | est./failed/dropped | key to frame p50 / p99 ms | B/s a walker | frames/s a walker | bytes a frame mean / p50 / p99 |"
	echo "|---|---|---|---|---|---|---|"
	for f in "$OUT"/mix-*.json; do
		[ -f "$f" ] || continue
		jq -r --arg run "$(basename "$f" .json)" '
			def r1: . * 10 | round / 10;
			.kinds[] | "| \($run) \(.kind) | \(.sessions) | \(.established)/\(.failed)/\(.dropped) | \(.latency.p50_ms | r1) / \(.latency.p99_ms | r1) | \(.bytes_per_second_active.mean | round) | \(.frames_per_second_active.mean | r1) | \(.frame_bytes.mean | round) / \(.frame_bytes.p50) / \(.frame_bytes.p99) |"' "$f"
	done
	echo
	echo "| the play page | bytes | gzipped |"
	echo "|---|---|---|"
	for f in "$OUT"/web-*.json "$OUT"/mix-*.json; do
		[ -f "$f" ] || continue
		jq -r '.page[]? | "| \(.path) | \(.bytes) | \(.gzip_bytes) |"' "$f"
		break
	done
} >"$OUT/table.md"
cat "$OUT/table.md"
echo "reports in $OUT" >&2
