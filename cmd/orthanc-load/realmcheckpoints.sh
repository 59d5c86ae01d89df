#!/usr/bin/env bash
# realmcheckpoints.sh measures a realm's checkpoints to etcd under the load tool's walkers
# (docs/PERFORMANCE.md, "Checkpoints to etcd with many knights walking"): a fresh etcd
# (the one on PATH, one member, fsync on), one realm server on it, N walkers. It reads
# etcd's and the server's metrics every 2 s and prints, over the steady part (the
# server's players online at least 95 % of the most), etcd's transactions a second (its
# gRPC server's Txn calls answered OK: etcd_mvcc_txn_total counts only those of more than
# one operation, and a checkpoint of one knight is one put), the
# knights written a second, the checkpoint's age (orthanc_realm_checkpoint_age_seconds:
# from the world filing a record to etcd holding it) and the most the oldest record
# waiting was (orthanc_realm_checkpoint_lag_seconds). Linux; needs curl, jq, awk.
#
#   cmd/orthanc-load/realmcheckpoints.sh N [SERVER] [OUT]
#
# SERVER is an orthanc-ssh binary (default: built from this tree), OUT a folder for the
# samples, the report and the logs (default: a new temporary folder). DURATION (default
# 60s) is the load tool's window; the ramp is N/10 seconds. ETCD_DELAY (say 75ms) puts
# the realm that far from etcd each way, through the load tool's delay proxy.
set -euo pipefail

N=${1:?walkers}
OUT=${3:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-60s}
ETCD=127.0.0.1:23790 PEER=127.0.0.1:23800 ADDR=127.0.0.1:24222 METRICS=127.0.0.1:24223
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

SERVER=${2:-$OUT/orthanc-ssh}
[ -n "${2:-}" ] || go build -o "$SERVER" ./cmd/orthanc-ssh
go build -o "$OUT/orthanc-load" ./cmd/orthanc-load

# At the end the sampler stops, then the server, which checks its knights in to etcd,
# then etcd.
. cmd/orthanc-load/procs.sh # pids, cleanup, wait_url (the script runs from the repository's root)

rm -rf "$OUT/etcd" "$OUT/data" && mkdir -p "$OUT/data"
etcd --name m1 --data-dir "$OUT/etcd" --listen-client-urls "http://$ETCD" --advertise-client-urls "http://$ETCD" \
	--listen-peer-urls "http://$PEER" --initial-advertise-peer-urls "http://$PEER" --initial-cluster "m1=http://$PEER" \
	2>"$OUT/etcd.log" &
etcd_pid=$!
pids=("$etcd_pid")
wait_url "http://$ETCD/health"
REALM_ETCD=$ETCD
if [ -n "${ETCD_DELAY:-}" ]; then
	REALM_ETCD=127.0.0.1:23795
	"$OUT/orthanc-load" delay -listen "$REALM_ETCD" -to "$ETCD" -delay "$ETCD_DELAY" >&2 &
	pids=($! "${pids[@]}")
fi
"$SERVER" -realm A -etcd "$REALM_ETCD" -data "$OUT/data" -addr "$ADDR" -metrics-addr "$METRICS" \
	-max-sessions 5000 -max-per-ip 5000 -max-handshakes 5000 -max-handshakes-per-ip 5000 -early-drop-at 5000 \
	-new-knights-per-hour 1000000 2>"$OUT/server.log" &
srv=$!
pids=("$srv" "${pids[@]}")
wait_url "http://$METRICS/metrics"

# The sampler: "time name value" lines, every 2 s.
: >"$OUT/samples"
(
	while :; do
		t=$(date +%s.%N)
		{
			curl -s "http://$ETCD/metrics" | grep -E '^(grpc_server_handled_total\{grpc_code="OK",grpc_method="Txn",[^ ]*|etcd_mvcc_put_total|etcd_disk_wal_fsync_duration_seconds_(sum|count)) ' | sed 's/^grpc_server_handled_total[^ ]*/etcd_txn_ok/'
			curl -s "http://$METRICS/metrics" | grep -E '^orthanc_(players_online|realm_[a-z_]+(\{le="[^"]*"\})?) '
		} | sed "s/^/$t /" >>"$OUT/samples"
		sleep 2
	done
) &
pids=($! "${pids[@]}")

echo "== $N walkers, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$OUT/orthanc-load" -addr "$ADDR" -n "$N" -ramp "$((N / 10))s" -walk-timeout 90s -duration "$DURATION" \
	-pid "$srv" -quiet -json >"$OUT/report.json" || true
echo "== done, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

jq -r '"walkers: \(.established) established, \(.failed) failed, \(.dropped) dropped; key to frame p50 \(.latency.p50_ms) ms, p99 \(.latency.p99_ms) ms; server CPU \(.server.cpu_percent)%; load average \(.load_average)"' "$OUT/report.json"
awk -f cmd/orthanc-load/realmcheckpoints.awk "$OUT/samples"
echo "samples, report and logs in $OUT" >&2
