#!/usr/bin/env bash
# Checks that two ccsim binaries give byte-identical results: runs every
# shipped scenario (scenarios/*.toml) and every experiment scenario
# (experiments/*/*.toml) under all of its schemes with both, and compares
# flows.csv, ports.csv and conns.csv. For core refactors (issue 36): the
# outputs must not move.
#
#   scripts/same_results.sh OLD_BINARY NEW_BINARY [STOP]
#
# STOP (default 300us) ends every run at that simulated time, so the check
# takes minutes; pass "none" to run every scenario to its end (hours).
# Prints one line per scenario and exits 1 on the first difference found
# (after finishing the sweep), 0 when all are identical.
set -uo pipefail
old=${1:?old binary}
new=${2:?new binary}
stop=${3:-300us}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stop_args=()
[ "$stop" != none ] && stop_args=(--stop "$stop")
status=0
for s in scenarios/*.toml experiments/*/*.toml; do
    case $s in */manifest.toml) continue ;; esac
    for side in old new; do
        bin=$old
        [ $side = new ] && bin=$new
        # a run may end in error (a PFC deadlock keeps its files; a link
        # event after STOP is refused): both sides must say the same
        nice "$bin" compare "$s" -q --force "${stop_args[@]}" --out "$work/$side" >"$work/$side.log" 2>&1
    done
    ea=$(grep -m1 '^error' "$work/old.log")
    eb=$(grep -m1 '^error' "$work/new.log")
    a=$(cd "$work/old" 2>/dev/null && find . \( -name flows.csv -o -name ports.csv -o -name conns.csv \) -exec md5sum {} + | sort -k2)
    b=$(cd "$work/new" 2>/dev/null && find . \( -name flows.csv -o -name ports.csv -o -name conns.csv \) -exec md5sum {} + | sort -k2)
    if [ "$ea" != "$eb" ]; then
        echo "DIFFER $s: old: ${ea:-no error}; new: ${eb:-no error}"
        status=1
    elif [ "$a" != "$b" ]; then
        echo "DIFFER $s"
        diff <(echo "$a") <(echo "$b") | head -6
        status=1
    elif [ -z "$a" ]; then
        echo "same   $s (no files; both: $ea)"
    else
        echo "same   $s ($(echo "$a" | wc -l) files${ea:+; both: $ea})"
    fi
    rm -rf "$work/old" "$work/new"
done
exit $status
