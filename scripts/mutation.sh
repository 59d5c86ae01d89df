#!/usr/bin/env bash
# Mutation testing of world/'s rule-bearing files (docs/MUTATION.md). gremlins changes the
# code one small way at a time (a < for a <=, a + for a -, a condition negated) and runs
# world's tests on each change; a change that leaves them green is a rule no test guards.
# It is a measurement, not part of CI: all the files took 111 minutes on two cores, on a busy
# machine, when last run (docs/MUTATION.md).
#
#   scripts/mutation.sh                   every rule-bearing file
#   scripts/mutation.sh combat encounter  only these (a file's name without .go)
#
# gremlins installs with: go install github.com/go-gremlins/gremlins/cmd/gremlins@latest
# Extra gremlins flags go in GREMLINS_FLAGS (for example "--workers 1").
set -euo pipefail
cd "$(dirname "$0")/.."

# The files that hold the seeds' rules (DESIGN §1, "world/ files"): a new knight's
# characteristics, the knight's derived state, moving, items, spells, traps, fights and their
# costs, the surface, markets and monsters' numbers. The rest of world/ (the engine loop,
# sessions, views, the level generator, chat and the community, parties, crowds, text) is
# left out.
rules=(arrival blows cast character combat command death encounter energy hazard inventory item market move outside player population recovery spell spoils surface trap)

only=("$@")
if [ ${#only[@]} -eq 0 ]; then
  only=("${rules[@]}")
fi
for f in "${only[@]}"; do
  if [ ! -f "world/$f.go" ]; then
    echo "mutation: no file world/$f.go" >&2
    exit 1
  fi
done

# gremlins can only leave files out, so every other file of world/ is excluded.
excludes=()
for path in world/*.go; do
  name=$(basename "$path" .go)
  case $name in *_test) continue ;; esac
  keep=false
  for f in "${only[@]}"; do
    if [ "$f" = "$name" ]; then keep=true; fi
  done
  if ! $keep; then excludes+=(-E "^${name}\.go\$"); fi
done

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# -count=1: gremlins times each mutant's tests against the first run, which must not come
# from the test cache. -short: the balance run's smoke sample instead of its reduced run
# (TestBalance), which would double the time of every mutant; the goals it checks are
# for CI, not for telling one small change from another.
# shellcheck disable=SC2086 # GREMLINS_FLAGS is a list of flags
GOFLAGS="-count=1 -short" gremlins unleash --timeout-coefficient 3 ${GREMLINS_FLAGS:-} "${excludes[@]}" ./world | tee "$out"

echo
echo "Mutants that lived (each is in docs/MUTATION.md, killed or explained):"
awk '$1 == "LIVED" { print $NF, $2 }' "$out" | sort -t: -k1,1 -k2,2n -k3,3n
echo
grep -E 'Killed:|Timed out:|Test efficacy:|Mutator coverage:' "$out"
