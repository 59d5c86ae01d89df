# procs.sh, sourced by the realm scripts: the processes a script starts (pids, stopped in
# the order started, each waited for, when the script ends) and wait_url.
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT

wait_url() { # wait until an http URL answers
	for _ in $(seq 100); do
		curl -sf "$1" >/dev/null && return 0
		sleep 0.1
	done
	echo "nothing answers at $1" >&2
	return 1
}
