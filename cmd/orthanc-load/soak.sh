#!/usr/bin/env bash
# soak.sh OUT: a soak of the store (issue 46). It starts the game server recording
# replays, runs the load tool at N (1000) sessions all walking, and every SAMPLE (30) s
# reads the server's bytes written to storage (/proc/PID/io write_bytes), the database
# file's size (stat) and its /metrics (bbolt's free pages and free list, the pages its
# commits wrote, the replays' bytes and churn, the commits' histogram): one CSV line a
# sample (OUT/soak.csv) and the raw scrape (OUT/scrapes/SECONDS.prom). At the end it
# writes OUT/table.md: the curves over time as a table, one row every ROW_EVERY (150) s,
# and the commits' p99 over the first and the last WINDOW (300) s after the ramp. Linux
# only (it reads /proc); needs bash, curl, awk and jq.
#
#   cmd/orthanc-load/soak.sh OUT                                   # an hour at 2 keys/s, 200 MB
#   DURATION=30m RATE=4 REPLAY_MB=100 cmd/orthanc-load/soak.sh OUT   # the same churn in half the time
#   TABLE_ONLY=1 cmd/orthanc-load/soak.sh OUT                      # the table again from OUT's samples
#
# N, RATE (keys a second a session), RAMP, DURATION (the load tool's window after the
# ramp), REPLAY_MB (-replay-store-mb) and SERVER_FLAGS (more of the server's flags) set
# the run.
set -euo pipefail

OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT/bin" "$OUT/scrapes"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
N=${N:-1000}
RATE=${RATE:-2}
RAMP=${RAMP:-100s}
DURATION=${DURATION:-60m}
REPLAY_MB=${REPLAY_MB:-200}
SAMPLE=${SAMPLE:-30}
ROW_EVERY=${ROW_EVERY:-150}
WINDOW=${WINDOW:-300}
ADDR=${ADDR:-127.0.0.1:22452}
METRICS=${METRICS:-127.0.0.1:22453}

# quantile Q OLD NEW: the commits' Q quantile (ms) between two scrapes, interpolated in
# its bucket as Prometheus's histogram_quantile does; OLD may be /dev/null (from the start).
quantile() {
	awk -v q="$1" '
		/^orthanc_store_commit_duration_seconds_bucket/ {
			match($0, /le="[^"]+"/); le = substr($0, RSTART + 4, RLENGTH - 5)
			if (FILENAME == ARGV[1]) old[le] = $NF; else { new[le] = $NF; if (!(le in seen)) { seen[le] = 1; order[++n] = le } }
		}
		END {
			total = new["+Inf"] - old["+Inf"]
			if (total <= 0) { print "-"; exit }
			rank = q * total; prevle = 0; prevc = 0
			for (i = 1; i <= n; i++) {
				le = order[i]; c = new[le] - old[le]
				if (c >= rank) {
					if (le == "+Inf") { printf "> %.1f\n", prevle * 1000; exit }
					printf "%.2f\n", (prevle + (le - prevle) * (rank - prevc) / (c - prevc)) * 1000; exit
				}
				prevle = le; prevc = c
			}
		}' "$2" "$3"
}

# metric NAME FILE: a scrape's value of an unlabelled metric, "-" when absent.
metric() { awk -v m="$1" '$1 == m { print $2; found = 1 } END { if (!found) print "-" }' "$2"; }

table() {
	local ramp_s=${RAMP%s} first last start_scrape end_scrape
	{
		echo "| min | load avg | written MB/s | file MB | free pages | pending | freelist KB | replays MB | replays written / deleted MB | commits/s | commit mean / p99 ms |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		awk -F, -v every="$ROW_EVERY" -v last="$(tail -1 "$OUT/soak.csv" | cut -d, -f1)" 'NR > 1 && ($1 >= row || $1 == last) {
			row += every
			printf "| %.1f | %s | %.2f | %.1f | %s | %s | %.1f | %.1f | %.0f / %.0f | %.2f | %s / %s |\n",
				$1 / 60, $2, $4 / 1048576, $5 / 1048576, $6, $7, $8 / 1024, $11 / 1048576, $12 / 1048576, $13 / 1048576, $15, $16, $17
		}' "$OUT/soak.csv"
		echo
		first=$(ls "$OUT/scrapes" | sort -n | awk -v r="$ramp_s" '$0 + 0 >= r' | head -1)
		last=$(ls "$OUT/scrapes" | sort -n | tail -1)
		start_scrape=$(ls "$OUT/scrapes" | sort -n | awk -v t="$((${first%.prom} + WINDOW))" '$0 + 0 >= t' | head -1)
		end_scrape=$(ls "$OUT/scrapes" | sort -n | awk -v t="$((${last%.prom} - WINDOW))" '$0 + 0 <= t' | tail -1)
		echo "Commits' p99 over the first ${WINDOW} s after the ramp (${first%.prom}–${start_scrape%.prom} s):" \
			"$(quantile 0.99 "$OUT/scrapes/$first" "$OUT/scrapes/$start_scrape") ms;" \
			"over the last (${end_scrape%.prom}–${last%.prom} s): $(quantile 0.99 "$OUT/scrapes/$end_scrape" "$OUT/scrapes/$last") ms."
		if [ -f "$OUT/load.json" ]; then
			jq -r '"The load tool: \(.established) established, \(.failed) failed, \(.dropped) dropped; keys p50 \(.latency.p50_ms) ms, p99 \(.latency.p99_ms) ms; server CPU \(.server.cpu_percent)% of a core; load average \(.load_average)."' "$OUT/load.json"
		fi
	} >"$OUT/table.md"
	cat "$OUT/table.md"
}

if [ -n "${TABLE_ONLY:-}" ]; then
	table
	exit 0
fi

ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
go build -o "$OUT/bin/orthanc-ssh" ./cmd/orthanc-ssh
go build -o "$OUT/bin/orthanc-load" ./cmd/orthanc-load
. cmd/orthanc-load/waitport.sh

rm -rf "$OUT/data" "$OUT/scrapes"/* && mkdir -p "$OUT/data"
# shellcheck disable=SC2086 # SERVER_FLAGS is words
"$OUT/bin/orthanc-ssh" -addr "$ADDR" -data "$OUT/data" -replay-store-mb "$REPLAY_MB" -metrics-addr "$METRICS" \
	-max-sessions 5000 -max-per-ip 5000 -max-handshakes 5000 -max-handshakes-per-ip 5000 \
	-early-drop-at 5000 -new-knights-per-hour 1000000 ${SERVER_FLAGS:-} 2>"$OUT/server.log" &
pid=$!
wait_port "$ADDR"
wait_port "$METRICS"

# The sampler: one line a sample. The write rate and the commits' rate, mean and p99 are
# over the interval since the sample before.
echo "seconds,load1,write_bytes,write_bytes_per_s,file_bytes,free_pages,pending_pages,freelist_bytes,free_bytes,page_written_bytes,replay_bytes,replay_written_bytes,replay_deleted_bytes,commits,commits_per_s,commit_mean_ms,commit_p99_ms,rss_kb" >"$OUT/soak.csv"
(
	t0=$(date +%s)
	prev=/dev/null pw=0 pc=0 ps=0 pt=0
	while kill -0 "$pid" 2>/dev/null; do
		t=$(($(date +%s) - t0))
		scrape="$OUT/scrapes/$t.prom"
		curl -s -m 10 "http://$METRICS/metrics" >"$scrape" || true
		wb=$(awk '/^write_bytes/ {print $2}' "/proc/$pid/io" 2>/dev/null || echo 0)
		rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
		size=$(stat -c %s "$OUT/data/orthanc.db" 2>/dev/null || echo 0)
		cc=$(metric orthanc_store_commit_duration_seconds_count "$scrape")
		cs=$(metric orthanc_store_commit_duration_seconds_sum "$scrape")
		dt=$((t - pt))
		line=$(awk -v wb="$wb" -v pw="$pw" -v cc="$cc" -v pc="$pc" -v cs="$cs" -v ps="$ps" -v dt="$dt" 'BEGIN {
			if (dt <= 0) dt = 1
			n = cc - pc
			printf "%.0f,%.3f,%.3f", (wb - pw) / dt, n / dt, (n > 0 ? (cs - ps) / n * 1000 : 0)
		}')
		echo "$t,$(cut -d' ' -f1 /proc/loadavg),$wb,${line%%,*},$size,$(metric orthanc_store_free_pages "$scrape"),$(metric orthanc_store_pending_pages "$scrape"),$(metric orthanc_store_freelist_bytes "$scrape"),$(metric orthanc_store_free_bytes "$scrape"),$(metric orthanc_store_page_written_bytes_total "$scrape"),$(metric orthanc_replay_bytes "$scrape"),$(metric orthanc_replay_written_bytes_total "$scrape"),$(metric orthanc_replay_deleted_bytes_total "$scrape"),$cc,${line#*,},$(quantile 0.99 "$prev" "$scrape"),$rss" >>"$OUT/soak.csv"
		prev=$scrape pw=$wb pc=$cc ps=$cs pt=$t
		sleep "$SAMPLE"
	done
) &
sampler=$!

echo "== soak: n=$N all walking at $RATE keys/s, ramp $RAMP, window $DURATION, -replay-store-mb $REPLAY_MB" >&2
"$OUT/bin/orthanc-load" -addr "$ADDR" -mode game -n "$N" -active "$N" -rate "$RATE" -ramp "$RAMP" \
	-duration "$DURATION" -walk-timeout 60s -pid "$pid" -quiet -json >"$OUT/load.json" || true
kill -TERM "$pid"
wait "$pid" || true
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
table
echo "samples in $OUT/soak.csv" >&2
