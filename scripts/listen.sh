#!/usr/bin/env bash
# Listening (issue 29): five minutes of play in screen-reader mode, spoken by espeak-ng.
#
#   scripts/listen.sh SERVER-BINARY PORT OUT-DIR
#
# Starts the server on a fresh data folder (the default dungeon, seed 1977), plays one
# scripted session through OpenSSH (`play --plain`: a new knight, help, look, the walk
# from the entrance to the guarded room north-west of it, the door, a fight, a line said,
# help on fighting, the map, then listening until five minutes have passed), and writes
# into OUT-DIR the raw bytes (raw), the lines said (lines: what a screen reader reads,
# the player's own typed lines left out) and a summary (summary): lines, words and
# seconds of speech at 175 words a minute, espeak-ng's default, in all and per minute.
# Each walking step's answer is timed too (step-NN), and their median said.
# The same script against two builds compares them (docs/PERFORMANCE.md, "Listening").
# Needs ssh, ssh-keygen, espeak-ng and perl; takes about five and a half minutes.
set -euo pipefail

bin=$1 port=$2 out=$3
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

"$bin" -addr "127.0.0.1:$port" -data "$work/data" >"$out/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done
ssh-keygen -q -t ed25519 -N '' -f "$work/key"

# say LINE WAIT: types a line, then listens WAIT seconds.
say() { printf '%s\r' "$1"; sleep "$2"; }
play() {
	sleep 3
	say '' 4 # the title: Enter begins
	say '' 3 # the dice: Enter keeps the knight
	say '' 15 # the name: Enter takes the one suggested; the arrival is said
	say help 25
	say look 8
	for step in north east north west west north; do say "$step" 4; done
	for _ in 1 2 3 4; do say 'open west' 4; done # a locked door may hold
	say west 6
	for _ in $(seq 8); do say fight 5; done
	say 'say hello, is anyone about?' 5
	say 'help fighting' 25
	for _ in $(seq 5); do say fight 5; done
	say map 12
	say look 8
	sleep $((SECONDS < 300 ? 300 - SECONDS : 0))
	say quit 2
	say yes 3
}
SECONDS=0
play | ssh -tt -p "$port" -i "$work/key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	-o LogLevel=ERROR 127.0.0.1 play --plain >"$out/raw" 2>/dev/null || true
minutes=$(awk "BEGIN { print $SECONDS / 60 }")

# The lines said: escape sequences out; of a line written over itself with a carriage
# return, what is left on the screen; the prompt and the player's own typed lines out.
perl -ne '
	s/\e\[[0-9;?]*[ -\/]*[@-~]//g; s/\e[()][A-Z0-9]//g; s/\e.//g;
	my @parts = grep { /\S/ } split /\r/; next unless @parts;
	my $l = $parts[-1]; $l =~ s/^(> )+//; $l =~ s/\s+$//;
	print "$l\n" if $l =~ /\S/ && $l !~ /^(help|look|north|east|west|south|open west|fight|say hello, is anyone about\?|help fighting|map|quit|yes)$/;
' "$out/raw" >"$out/lines"

# Each walking step's answer: the lines said after a step's typed line until the next
# typed line, one file a step, each timed as the whole is.
rm -f "$out"/step-*
OUT=$out perl -ne '
	BEGIN { $n = 0; $f = undef }
	s/\e\[[0-9;?]*[ -\/]*[@-~]//g; s/\e[()][A-Z0-9]//g; s/\e.//g;
	my @parts = grep { /\S/ } split /\r/; next unless @parts;
	my $l = $parts[-1]; $l =~ s/^(> )+//; $l =~ s/\s+$//;
	next unless $l =~ /\S/;
	if ($l =~ /^(north|east|west|south)$/) { $n++; open($f, ">", sprintf("%s/step-%02d", $ENV{OUT}, $n)) or die; next }
	if ($l =~ /^(help|look|open west|fight|say hello, is anyone about\?|help fighting|map|quit|yes)$/) { $f = undef; next }
	print $f "$l\n" if $f;
' "$out/raw"
steps=()
for f in "$out"/step-*; do
	[ -e "$f" ] || continue
	b=$(espeak-ng -s 175 --stdout -f "$f" | wc -c)
	steps+=("$(awk "BEGIN { printf \"%.1f\", ($b - 44) / 44100 }")")
done
median=$(printf '%s\n' "${steps[@]:-0}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')

lines=$(wc -l <"$out/lines")
words=$(wc -w <"$out/lines")
# espeak-ng writes 16-bit mono WAV at 22050 Hz: its bytes after the 44 of the header
# are the seconds of speech.
bytes=$(espeak-ng -s 175 --stdout -f "$out/lines" | wc -c)
speech=$(awk "BEGIN { printf \"%.0f\", ($bytes - 44) / 44100 }")
{
	echo "minutes of play: $minutes"
	echo "lines: $lines ($(awk "BEGIN { printf \"%.1f\", $lines / $minutes }") a minute)"
	echo "words: $words"
	echo "speech at 175 wpm: ${speech} s ($(awk "BEGIN { printf \"%.0f\", $speech / $minutes }") s a minute)"
	echo "walking steps: ${#steps[@]}, speech each: ${steps[*]:-} s; median ${median} s"
	echo "escape bytes: $(tr -cd '\033' <"$out/raw" | wc -c)"
} | tee "$out/summary"
