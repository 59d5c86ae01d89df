# realmcheckpoints.awk sums up realmcheckpoints.sh's samples ("time name value" lines)
# over the steady part: the samples whose players online are at least 95 % of the most.
{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; ts[++n] = $1 } }
$2 == "orthanc_players_online" && $3 > most { most = $3 }
$2 ~ /_bucket\{le="/ { le = $2; sub(/.*le="/, "", le); sub(/".*/, "", le); les[le] = 1 }
END {
	for (i = 1; i <= n; i++) {
		t = ts[i]
		if (v[t, "orthanc_players_online"] + 0 < 0.95 * most) continue
		if (a == "") a = t
		b = t
		lag = v[t, "orthanc_realm_checkpoint_lag_seconds"] + 0
		if (lag > maxlag) maxlag = lag
		lagsum += lag; lagn++
	}
	if (a == "" || a == b) { print "no steady part with two samples"; exit 1 }
	secs = b - a
	d["txn"] = v[b, "etcd_txn_ok"] - v[a, "etcd_txn_ok"]
	d["puts"] = v[b, "etcd_mvcc_put_total"] - v[a, "etcd_mvcc_put_total"]
	d["written"] = v[b, "orthanc_realm_knights_written_total"] - v[a, "orthanc_realm_knights_written_total"]
	d["fsyncs"] = v[b, "etcd_disk_wal_fsync_duration_seconds_count"] - v[a, "etcd_disk_wal_fsync_duration_seconds_count"]
	d["fsyncsum"] = v[b, "etcd_disk_wal_fsync_duration_seconds_sum"] - v[a, "etcd_disk_wal_fsync_duration_seconds_sum"]
	count = v[b, "orthanc_realm_checkpoint_age_seconds_count"] - v[a, "orthanc_realm_checkpoint_age_seconds_count"]
	sum = v[b, "orthanc_realm_checkpoint_age_seconds_sum"] - v[a, "orthanc_realm_checkpoint_age_seconds_sum"]
	printf "steady part: %.0f s at %d players online or more (most %d)\n", secs, 0.95 * most, most
	printf "etcd transactions/s: %.1f; fsyncs/s: %.1f (mean %.1f ms)\n", d["txn"] / secs, d["fsyncs"] / secs, d["fsyncs"] ? 1000 * d["fsyncsum"] / d["fsyncs"] : 0
	printf "knights written/s: %.0f; etcd puts/s: %.0f\n", d["written"] / secs, d["puts"] / secs
	if (count > 0) {
		printf "checkpoint age: mean %.2f s, p50 <= %s s, p99 <= %s s (%d writes)\n", sum / count, q(0.5), q(0.99), count
	}
	printf "oldest record waiting (lag gauge): mean %.2f s, most %.2f s\n", lagsum / lagn, maxlag
}
# q is the bucket bound the q-th of the window's ages fall under.
function q(p,    le, bs, k, i, j, tmp, c, name) {
	k = 0
	for (le in les) bs[++k] = le
	for (i = 2; i <= k; i++) { tmp = bs[i]; j = i - 1; while (j > 0 && (bs[j] == "+Inf" || (tmp != "+Inf" && bs[j] + 0 > tmp + 0))) { bs[j + 1] = bs[j]; j-- } bs[j + 1] = tmp }
	for (i = 1; i <= k; i++) {
		name = "orthanc_realm_checkpoint_age_seconds_bucket{le=\"" bs[i] "\"}"
		c = v[b, name] - v[a, name]
		if (c >= p * count) return bs[i]
	}
	return "+Inf"
}
