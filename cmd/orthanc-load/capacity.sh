#!/usr/bin/env bash
# capacity.sh runs issue 19's capacity sweep: for each of two loads, all sessions walking
# at 2 keys/s and a tenth of them walking, a fresh game server a run at N = START,
# START+STEP, ... up to STOP, one load-tool run each with -pid and -json. A load's series
# stops one step after the first run past the limit (p99 over LIMIT_MS, or any session
# failed or dropped). First, the handshake comparison: HS_N logins, HS_CONCURRENCY at
# once, against the game server and against the raw x/crypto/ssh reference. Then the
# figure and the table, made from the reports by scripts/capacityplot. Linux only (it
# reads /proc); needs bash, ssh-keygen and jq; Go builds everything.
#
#   OUT=$(mktemp -d); cmd/orthanc-load/capacity.sh "$OUT"     # about 1 to 2 hours
#   START=10 STEP=10 STOP=30 DURATION=5s HS_N=20 HS_CONCURRENCY=5 cmd/orthanc-load/capacity.sh "$OUT"
#
# OUT (default: a new temporary folder) gets one JSON report and one server log a run
# (all-nN.json, tenth-nN.json, hs-game.json, hs-raw.json), capacity.svg and capacity.md.
#
#   START, STEP, STOP   the Ns (default 100, 100, 1500)
#   LOADS               which series, of "all tenth" (the default)
#   RATE                keys a second of each walking session (2)
#   DURATION            each run's measured window (60s)
#   RAMP_PER_SESSION    seconds of ramp a session (0.1: ten connections a second, as
#                       measure.sh, so N = 1000 ramps over 100 s)
#   LIMIT_MS            the p99 that ends a series (100)
#   HS_N, HS_CONCURRENCY  the handshake runs (2000 and 200); HS_N=0 skips them
#   GAME_ADDR, RAW_ADDR the servers' loopback addresses
set -euo pipefail

OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd) # the builds run from the repository's root
cd "$(dirname "$0")/../.."
START=${START:-100}
STEP=${STEP:-100}
STOP=${STOP:-1500}
LOADS=${LOADS:-all tenth}
RATE=${RATE:-2}
DURATION=${DURATION:-60s}
RAMP_PER_SESSION=${RAMP_PER_SESSION:-0.1}
LIMIT_MS=${LIMIT_MS:-100}
HS_N=${HS_N:-2000}
HS_CONCURRENCY=${HS_CONCURRENCY:-200}
GAME_ADDR=${GAME_ADDR:-127.0.0.1:22432}
RAW_ADDR=${RAW_ADDR:-127.0.0.1:22434}
# The game's limits, out of the way: every connection comes from one address.
LIMIT=$((STOP * 2 + HS_CONCURRENCY + 1000))
mkdir -p "$OUT/bin"
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

go build -o "$OUT/bin/orthanc-ssh" ./cmd/orthanc-ssh
go build -o "$OUT/bin/orthanc-load" ./cmd/orthanc-load
go build -o "$OUT/bin/rawssh" ./cmd/orthanc-load/rawssh
(cd scripts/capacityplot && go build -o "$OUT/bin/capacityplot" .)
[ -f "$OUT/admin" ] || ssh-keygen -q -t ed25519 -N '' -C orthanc-load-admin -f "$OUT/admin"

listening() { (exec 3<>"/dev/tcp/${1%:*}/${1##*:}") 2>/dev/null; }

. cmd/orthanc-load/waitport.sh

for addr in "$GAME_ADDR" "$RAW_ADDR"; do
	if listening "$addr"; then
		echo "something already listens on $addr: set GAME_ADDR or RAW_ADDR" >&2
		exit 1
	fi
done

pid=
trap '[ -z "$pid" ] || kill -TERM "$pid" 2>/dev/null || true' EXIT
start_game() { # start_game NAME: a fresh game server with an empty data folder
	rm -rf "$OUT/data-$1" && mkdir -p "$OUT/data-$1"
	cp "$OUT/admin.pub" "$OUT/data-$1/admin_keys"
	"$OUT/bin/orthanc-ssh" -addr "$GAME_ADDR" -data "$OUT/data-$1" \
		-max-sessions "$LIMIT" -max-per-ip "$LIMIT" -max-handshakes "$LIMIT" \
		-max-handshakes-per-ip "$LIMIT" -early-drop-at "$LIMIT" -new-knights-per-hour 1000000 >"$OUT/$1.log" 2>&1 &
	pid=$!
	wait_port "$GAME_ADDR"
	sleep 1 # let the server settle before its baseline RSS is read
}

stop_server() {
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
}

# The handshake comparison: the game server, then the raw reference.
if [ "$HS_N" -gt 0 ]; then
	echo "== handshakes: $HS_N logins, $HS_CONCURRENCY at once" >&2
	start_game hs-game
	"$OUT/bin/orthanc-load" -mode handshake -addr "$GAME_ADDR" -n "$HS_N" -concurrency "$HS_CONCURRENCY" \
		-pid "$pid" -quiet -json >"$OUT/hs-game.json" || true
	stop_server
	"$OUT/bin/rawssh" -addr "$RAW_ADDR" >"$OUT/hs-raw.log" 2>&1 &
	pid=$!
	wait_port "$RAW_ADDR"
	sleep 1
	"$OUT/bin/orthanc-load" -mode handshake -addr "$RAW_ADDR" -n "$HS_N" -concurrency "$HS_CONCURRENCY" \
		-pid "$pid" -quiet -json >"$OUT/hs-raw.json" || true
	stop_server
	for f in hs-game hs-raw; do
		jq -r --arg f "$f" '"   \($f): \(.logged_in) logged in, \(.failed) failed, \(.handshakes_per_second) a second (steady \(.steady_handshakes_per_second)), p99 \(.handshake.p99_ms) ms, server CPU \(.server.cpu_percent)%"' "$OUT/$f.json" >&2
	done
fi

# run_one LOAD N: one run; sets verdict to over when it is past the limit, else under.
verdict=
run_one() {
	local load=$1 n=$2 active ramp name=$1-n$2
	case $load in
	all) active=$n ;;
	tenth) active=$(((n + 5) / 10)) ;;
	*)
		echo "unknown load $load (want all or tenth)" >&2
		exit 2
		;;
	esac
	ramp=$(awk -v n="$n" -v r="$RAMP_PER_SESSION" 'BEGIN { printf "%.1fs", n * r }')
	start_game "$name"
	echo "== $name: n=$n active=$active rate=$RATE ramp=$ramp duration=$DURATION" >&2
	"$OUT/bin/orthanc-load" -addr "$GAME_ADDR" -mode game -n "$n" -active "$active" -rate "$RATE" \
		-ramp "$ramp" -duration "$DURATION" -walk-timeout 60s -pid "$pid" -admin-key "$OUT/admin" \
		-stats-every 25s -quiet -json >"$OUT/$name.json" || true
	stop_server
	jq -r '"   established \(.established) failed \(.failed) dropped \(.dropped), p50 \(.latency.p50_ms) p99 \(.latency.p99_ms) ms, server CPU \(.server.cpu_percent)%, load average \(.load_average[1])"' "$OUT/$name.json" >&2
	verdict=$(jq -r --argjson limit "$LIMIT_MS" \
		'if .latency.p99_ms > $limit or .failed > 0 or .dropped > 0 then "over" else "under" end' "$OUT/$name.json") || verdict=over
}

for load in $LOADS; do
	first_over=
	for ((n = START; n <= STOP; n += STEP)); do
		run_one "$load" "$n"
		if [ -n "$first_over" ]; then
			break # that was the one step beyond
		fi
		if [ "$verdict" = over ]; then
			first_over=$n
		fi
	done
done

"$OUT/bin/capacityplot" -svg "$OUT/capacity.svg" -limit "$LIMIT_MS" "$OUT" >"$OUT/capacity.md"
cat "$OUT/capacity.md"
echo "reports, capacity.svg and capacity.md in $OUT" >&2
