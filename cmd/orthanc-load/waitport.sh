# waitport.sh, sourced by the load scripts: wait_port HOST:PORT waits (10 s at most) until
# something accepts connections there, as a server just started comes up.
wait_port() {
	local host=${1%:*} port=${1##*:}
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	echo "nothing listens on $1" >&2
	return 1
}
