#!/usr/bin/env bash
# realmcluster.sh measures two realms on a three-member etcd while members die
# (docs/OPERATIONS.md, "Three realms on a three-member etcd"): three etcd members on
# loopback (the etcd on PATH, fsync on), realms A and B on all three, talking over their
# nats-servers, and N walkers on each (the load tool). Into the window it kills a
# follower member with SIGKILL (at 20 s), starts it again on its data (at 35 s), then
# kills the leader with SIGKILL (at 50 s) and leaves it down. It reads each realm's
# metrics every second and prints what the players saw (sessions dropped, keys
# unanswered, key-to-frame latency), each realm's oldest checkpoint waiting in each phase
# and its checkpoint age, what the realms logged, and what etcd holds at the end: no
# claim left (every knight checked in) and a sheet for every knight. Linux; needs etcd,
# etcdctl, curl, jq, awk.
#
#   cmd/orthanc-load/realmcluster.sh N [SERVER] [OUT]
#
# SERVER is an orthanc-ssh binary (default: built from this tree), OUT a folder for the
# samples, the reports and the logs (default: a new temporary folder). DURATION (default
# 80s) is the load tool's window; the ramp is N/10 seconds.
set -euo pipefail

N=${1:?walkers on each realm}
OUT=${3:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-80s}
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

SERVER=${2:-$OUT/orthanc-ssh}
[ -n "${2:-}" ] || go build -o "$SERVER" ./cmd/orthanc-ssh
go build -o "$OUT/orthanc-load" ./cmd/orthanc-load

CLIENT=(127.0.0.1:23861 127.0.0.1:23862 127.0.0.1:23863)
PEER=(127.0.0.1:23871 127.0.0.1:23872 127.0.0.1:23873)
ENDPOINTS=$(IFS=,; echo "${CLIENT[*]}")
CLUSTER=m1=http://${PEER[0]},m2=http://${PEER[1]},m3=http://${PEER[2]}

. cmd/orthanc-load/procs.sh # pids, cleanup, wait_url (the script runs from the repository's root)

declare -A member_pid
start_member() { # start_member I STATE: member I (0..2), cluster state new or existing
	local i=$1
	etcd --name "m$((i + 1))" --data-dir "$OUT/etcd$i" \
		--listen-client-urls "http://${CLIENT[$i]}" --advertise-client-urls "http://${CLIENT[$i]}" \
		--listen-peer-urls "http://${PEER[$i]}" --initial-advertise-peer-urls "http://${PEER[$i]}" \
		--initial-cluster "$CLUSTER" --initial-cluster-state "$2" --initial-cluster-token orthanc-load \
		2>>"$OUT/etcd$i.log" &
	member_pid[$i]=$!
}

leader() { # the index of the leader among the members that answer
	local i
	for i in 0 1 2; do
		etcdctl --endpoints "${CLIENT[$i]}" --command-timeout 2s endpoint status -w json 2>/dev/null |
			jq -e '.[0].Status.header.member_id == .[0].Status.leader' >/dev/null && echo "$i" && return 0
	done
	return 1
}

event() { # note an event, with the time, in the events file and on stderr
	echo "$(date +%s.%N) $*" >>"$OUT/events"
	echo "== $*" >&2
}

rm -rf "$OUT"/etcd? "$OUT"/data? "$OUT"/events "$OUT"/samples.* && mkdir -p "$OUT/dataA" "$OUT/dataB"
for i in 0 1 2; do start_member "$i" new; done
for i in 0 1 2; do wait_url "http://${CLIENT[$i]}/health"; done

rm -f "$OUT/realm.secret" && "$SERVER" -make-realm-secret "$OUT/realm.secret"
limits=(-realm-secret "$OUT/realm.secret" -max-sessions 5000 -max-per-ip 5000 -max-handshakes 5000 -max-handshakes-per-ip 5000 -early-drop-at 5000 -new-knights-per-hour 1000000)
"$SERVER" -realm A -etcd "$ENDPOINTS" -data "$OUT/dataA" -addr 127.0.0.1:23881 -metrics-addr 127.0.0.1:23891 \
	-nats-listen 127.0.0.1:23901 "${limits[@]}" 2>"$OUT/realmA.log" &
realmA=$!
wait_url "http://127.0.0.1:23891/metrics"
"$SERVER" -realm B -etcd "$ENDPOINTS" -data "$OUT/dataB" -addr 127.0.0.1:23882 -metrics-addr 127.0.0.1:23892 \
	-nats-listen 127.0.0.1:23902 -nats-routes 127.0.0.1:23901 "${limits[@]}" 2>"$OUT/realmB.log" &
realmB=$!
pids=("$realmA" "$realmB" "${member_pid[@]}")
wait_url "http://127.0.0.1:23892/metrics"

# The sampler: "time name value" lines, every second, a file for each realm.
(
	while :; do
		t=$(date +%s.%N)
		for r in A:23891 B:23892; do
			curl -s "http://127.0.0.1:${r#*:}/metrics" | grep -E '^orthanc_(players_online|realm_[a-z_]+(\{le="[^"]*"\})?) ' |
				sed "s/^/$t /" >>"$OUT/samples.${r%%:*}" || true
		done
		sleep 1
	done
) &
pids=($! "${pids[@]}")

event "start: $N walkers on each realm, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in A:23881:"$realmA" B:23882:"$realmB"; do
	IFS=: read -r name port pid <<<"$r"
	"$OUT/orthanc-load" -addr "127.0.0.1:$port" -n "$N" -ramp "$((N / 10))s" -walk-timeout 90s -duration "$DURATION" \
		-pid "$pid" -quiet -json >"$OUT/report.$name.json" &
	loads+=($!)
done

# The window starts once every walker is in; then the members die.
online() { curl -s "http://127.0.0.1:$1/metrics" | awk '$1 == "orthanc_players_online" { print $2 + 0 }'; }
until [ "$(online 23891)" -ge "$N" ] && [ "$(online 23892)" -ge "$N" ]; do sleep 0.5; done
event "window: every walker in"
sleep 20
l=$(leader)
f=$(((l + 1) % 3))
event "kill -9 follower m$((f + 1)) (leader m$((l + 1)))"
kill -9 "${member_pid[$f]}"
sleep 15
start_member "$f" existing
pids+=("${member_pid[$f]}")
event "follower m$((f + 1)) started again"
sleep 15
l=$(leader)
event "kill -9 leader m$((l + 1))"
kill -9 "${member_pid[$l]}"
for p in "${loads[@]}"; do wait "$p" || true; done
event "walkers gone, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# Every session closed: each realm checks its knights in. What etcd holds, from the
# members alive.
alive=$(for i in 0 1 2; do [ "$i" != "$l" ] && echo -n "${CLIENT[$i]},"; done)
alive=${alive%,}
sleep 5
claims=$(etcdctl --endpoints "$alive" get --prefix /orthanc/claim/ --keys-only | grep -c claim || true)
sheets=$(etcdctl --endpoints "$alive" get --prefix /orthanc/knight/ --keys-only | grep -c knight || true)

for name in A B; do
	jq -r --arg n "$name" '"realm \($n): walkers \(.established) established, \(.failed) failed, \(.dropped) dropped; keys \(.keys.sent) sent, \(.keys.unanswered) unanswered; key to frame p50 \(.latency.p50_ms) ms, p99 \(.latency.p99_ms) ms, max \(.latency.max_ms) ms"' "$OUT/report.$name.json"
done
for name in A B; do
	echo "realm $name: oldest checkpoint waiting, most, by phase:"
	awk -v ev="$OUT/events" '
		BEGIN { while ((getline line < ev) > 0) { split(line, f, " "); n++; at[n] = f[1]; sub(/^[^ ]* /, "", line); what[n] = line } }
		$2 == "orthanc_realm_checkpoint_lag_seconds" {
			p = 0; for (i = 1; i <= n; i++) if ($1 >= at[i]) p = i
			if ($3 + 0 > most[p]) most[p] = $3 + 0
			seen[p] = 1
		}
		END { for (i = 1; i <= n; i++) if (seen[i]) printf "  after %-45s %.2f s\n", substr(what[i], 1, 45), most[i] }' "$OUT/samples.$name"
	echo "realm $name, over the steady part:"
	awk -f cmd/orthanc-load/realmcheckpoints.awk "$OUT/samples.$name" | grep -E "^(steady|knights written|checkpoint age)" | sed "s/^/  /" || true
done
for name in A B; do
	echo "realm $name logged: $(grep -c 'realm stopped' "$OUT/realm$name.log" || true) realm stopped, $(grep -c 'write failed; retrying' "$OUT/realm$name.log" || true) write failed; retrying, $(grep -c 'claim went' "$OUT/realm$name.log" || true) claim lost"
done
echo "etcd at the end: $claims claims held (every knight checked in: 0), $sheets knights kept (want $((2 * N)))"
echo "samples, reports and logs in $OUT" >&2
