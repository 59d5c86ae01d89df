#!/usr/bin/env bash
# measure.sh runs the load table of docs/PERFORMANCE.md: the game server and the bare
# reference, each as its own process on loopback, driven by orthanc-load, one fresh
# server per row. Linux only (it reads /proc); needs bash, ssh-keygen and jq.
#
#   cmd/orthanc-load/measure.sh [OUT]            # every row, about 25 minutes
#   ROWS="g100 b100" cmd/orthanc-load/measure.sh  # some rows
#
# OUT (default: a new temporary folder) gets one JSON report and one server log per row,
# and table.md, the summary. DURATION (default 60s) is each row's measured window.
set -euo pipefail

OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd) # the builds run from the repository's root
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-60s}
GAME_ADDR=${GAME_ADDR:-127.0.0.1:22422}
BARE_ADDR=${BARE_ADDR:-127.0.0.1:22423}
mkdir -p "$OUT/bin"
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

go build -o "$OUT/bin/orthanc-ssh" ./cmd/orthanc-ssh
go build -o "$OUT/bin/bare" ./cmd/orthanc-load/bare
go build -o "$OUT/bin/orthanc-load" ./cmd/orthanc-load
[ -f "$OUT/admin" ] || ssh-keygen -q -t ed25519 -N '' -C orthanc-load-admin -f "$OUT/admin"

# Each row: name mode n active rate ramp. g = game, b = bare.
ALL_ROWS=(
	"g1    game 1    1   2 1s"
	"g100  game 100  10  2 10s"
	"g500  game 500  50  2 50s"
	"g1000 game 1000 100 2 100s"
	"b1    bare 1    1   2 1s"
	"b100  bare 100  10  2 10s"
	"b500  bare 500  50  2 50s"
	"b1000 bare 1000 100 2 100s"
	"g200all  game 200 200 2 20s"
	"b200all  bare 200 200 2 20s"
	"g500all  game 500 500 1 50s"
	"b500all  bare 500 500 1 50s"
	"g1000all game 1000 1000 2 100s"
	"b1000all bare 1000 1000 2 100s"
	"g100idle game 100 0   2 10s"
	"b100idle bare 100 0   2 10s"
)

. cmd/orthanc-load/waitport.sh

run_row() {
	local name=$1 mode=$2 n=$3 active=$4 rate=$5 ramp=$6 addr pid
	local extra=()
	if [ "$mode" = game ]; then
		addr=$GAME_ADDR
		rm -rf "$OUT/data-$name" && mkdir -p "$OUT/data-$name"
		cp "$OUT/admin.pub" "$OUT/data-$name/admin_keys"
		"$OUT/bin/orthanc-ssh" -addr "$addr" -data "$OUT/data-$name" \
			-max-sessions 5000 -max-per-ip 5000 -max-handshakes 5000 -max-handshakes-per-ip 5000 -early-drop-at 5000 -new-knights-per-hour 1000000 \
			2>"$OUT/$name.log" &
		pid=$!
		extra=(-admin-key "$OUT/admin" -stats-every 25s)
	else
		addr=$BARE_ADDR
		"$OUT/bin/bare" -addr "$addr" 2>"$OUT/$name.log" &
		pid=$!
	fi
	wait_port "$addr"
	sleep 1 # let the server settle before its baseline RSS is read
	echo "== $name: $mode n=$n active=$active rate=$rate ramp=$ramp duration=$DURATION" >&2
	"$OUT/bin/orthanc-load" -addr "$addr" -mode "$mode" -n "$n" -active "$active" -rate "$rate" \
		-ramp "$ramp" -duration "$DURATION" -walk-timeout 60s -pid "$pid" -quiet -json "${extra[@]}" \
		>"$OUT/$name.json" || true
	kill -TERM "$pid"
	wait "$pid" || true
	jq -r '"   established \(.established) failed \(.failed) dropped \(.dropped), p99 \(.latency.p99_ms) ms, server CPU \(.server.cpu_percent)%"' "$OUT/$name.json" >&2
}

for row in "${ALL_ROWS[@]}"; do
	read -r name mode n active rate ramp <<<"$row"
	if [ -n "${ROWS:-}" ] && [[ " $ROWS " != *" $name "* ]]; then
		continue
	fi
	run_row "$name" "$mode" "$n" "$active" "$rate" "$ramp"
done

# The summary: one line per row, then the game/bare ratios at the same N and load.
{
	echo "| row | N | active × keys/s | est./failed/dropped | RSS/session MiB | CPU % | p50 / p95 / p99 ms | B/s active | B/s idle | tick p50 / p99 ms | turns/s | load tool CPU % | load avg |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for f in "$OUT"/*.json; do
		jq -r --arg row "$(basename "$f" .json)" '
			def r1: . * 10 | round / 10;
			"| \($row) | \(.n) | \(.active) × \(.rate_keys_per_second) | \(.established)/\(.failed)/\(.dropped) | \(.server.rss_per_session_kb / 1024 | . * 100 | round / 100) | \(.server.cpu_percent | round) | \(.latency.p50_ms | r1) / \(.latency.p95_ms | r1) / \(.latency.p99_ms | r1) | \(if .bytes_per_second_active.sessions > 0 then (.bytes_per_second_active.mean | round) else "–" end) | \(if .bytes_per_second_idle.sessions > 0 then (.bytes_per_second_idle.mean | round) else "–" end) | \(if .world then "\(.world.tick_p50_ms) / \(.world.tick_p99_ms)" else "–" end) | \(if .world then (.world.turns_per_second | r1) else "–" end) | \(.load_tool.cpu_percent | round) | \(.load_average[1]) |"' "$f"
	done
	echo
	echo "| N, load | RSS/session | CPU | p99 | B/s active | B/s idle |"
	echo "|---|---|---|---|---|---|"
	for g in "$OUT"/g*.json; do
		b="$OUT/b$(basename "$g" | cut -c2-)"
		[ -f "$b" ] || continue
		jq -r -s --arg row "$(basename "$g" .json | cut -c2-)" '
			def ratio(a; b): if b == 0 or b == null then "–" else "\(a / b * 100 | round / 100)×" end;
			.[0] as $g | .[1] as $b |
			"| \($row) | \(ratio($g.server.rss_per_session_kb; $b.server.rss_per_session_kb)) | \(ratio($g.server.cpu_percent; $b.server.cpu_percent)) | \(ratio($g.latency.p99_ms; $b.latency.p99_ms)) | \(ratio($g.bytes_per_second_active.mean; $b.bytes_per_second_active.mean)) | \(ratio($g.bytes_per_second_idle.mean; $b.bytes_per_second_idle.mean)) |"' "$g" "$b"
	done
} >"$OUT/table.md"
cat "$OUT/table.md"
echo "reports in $OUT" >&2
