#!/usr/bin/env bash
# Paired A/B timing of ccsim binaries: runs the same ccsim command with each
# binary in turn, ROUNDS times (the order rotates each round), and prints per
# binary the median and minimum user CPU time and, against the first binary,
# the median of the per-round ratios and the ratio of the minima.
#
#   scripts/ab.sh [-n ROUNDS] OLD NEW [MORE...] -- ARGS...
#   scripts/ab.sh -n 15 /tmp/ccsim-old target/release/ccsim -- \
#       run shared.toml --scheme hpcc --stop 1ms --quiet
#
# The output folder (--out) is added: one scratch folder per binary. On a
# shared VM single runs vary by 10-20%: use 10 or more rounds, and read a
# change under a few percent as a tie unless the medians and minima agree.
set -euo pipefail
rounds=10
if [ "${1:-}" = -n ]; then
    rounds=${2:?rounds}
    shift 2
fi
bins=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    bins+=("$1")
    shift
done
[ "${1:-}" = -- ] || { echo "usage: $0 [-n ROUNDS] OLD NEW [MORE...] -- ARGS..." >&2; exit 2; }
shift
[ ${#bins[@]} -ge 2 ] || { echo "$0: give at least two binaries" >&2; exit 2; }
for b in "${bins[@]}"; do
    [ -x "$b" ] || { echo "$0: $b is not an executable" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=${#bins[@]}
TIMEFORMAT=%U
for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < n; k++)); do
        i=$(((k + r) % n))
        rm -rf "$work/out$i"
        t=$( { time "${bins[$i]}" "$@" --out "$work/out$i" >/dev/null 2>"$work/err"; } 2>&1 ) || {
            echo "$0: ${bins[$i]} failed:" >&2
            cat "$work/err" >&2
            exit 1
        }
        echo "$r $i $t" >>"$work/times"
    done
done
python3 - "$work/times" "${bins[@]}" <<'EOF'
import statistics, sys
path, bins = sys.argv[1], sys.argv[2:]
t = {}
for line in open(path):
    r, i, s = line.split()
    t.setdefault(int(i), {})[int(r)] = float(s)
base = t[0]
print(f"{'binary':40} {'median s':>9} {'min s':>7} {'median ratio':>13} {'min ratio':>10}")
for i, b in enumerate(bins):
    ratios = [t[i][r] / base[r] for r in base if base[r] > 0]
    med, low = statistics.median(t[i].values()), min(t[i].values())
    print(f"{b[-40:]:40} {med:9.3f} {low:7.3f} {statistics.median(ratios):13.3f} {low / min(base.values()):10.3f}")
print(f"({len(base)} rounds, user CPU seconds; ratios against {bins[0]})")
EOF
