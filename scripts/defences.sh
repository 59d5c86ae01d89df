#!/usr/bin/env bash
# The defences' mutants (docs/MUTATION.md, "The defences"): each line of scripts/defences.txt
# changes one defence (a bound, a window, a check) in a copy of the module, and the tests it
# names must then fail. A mutant that lives is a defence no test guards. gremlins
# (scripts/mutation.sh) makes its mutants by rule; these are made by hand, one for each
# defence, and most are changes gremlins does not make (a number, a line taken out).
#
#   scripts/defences.sh              every mutant
#   scripts/defences.sh knights/     only those of files whose path holds this
#
# It prints each mutant KILLED or LIVED and exits 1 if any lived, did not apply or did not
# build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
only=${1:-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar --exclude=.git -cf - . | tar -xf - -C "$work"

killed=0 lived=0 failed=0
while IFS=$'\t' read -r what file pkg run change; do
  case $what in '#'* | '') continue ;; esac
  if [ -n "$only" ] && [[ $file != *"$only"* ]]; then continue; fi
  perl -0pi -e "$change" "$work/$file"
  if cmp -s "$work/$file" "$root/$file"; then
    echo "NO MATCH  $what ($file)"
    failed=$((failed + 1))
    continue
  fi
  if (cd "$work" && go test -count=1 -short -timeout 5m -run "$run" "$pkg" >"$work/out" 2>&1); then
    echo "LIVED     $what ($file)"
    lived=$((lived + 1))
  elif grep -q -e 'build failed' -e 'setup failed' "$work/out"; then
    echo "NO BUILD  $what ($file)" # a mutant that does not compile says nothing of the tests
    failed=$((failed + 1))
  else
    echo "KILLED    $what ($file)"
    killed=$((killed + 1))
  fi
  cp "$root/$file" "$work/$file"
done < "$work/scripts/defences.txt" # the copy: the list may be edited meanwhile

echo
echo "killed $killed, lived $lived, did not apply or build $failed"
[ "$lived" -eq 0 ] && [ "$failed" -eq 0 ]
