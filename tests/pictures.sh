#!/bin/bash
# SPDX-License-Identifier: MIT
# `make pictures`: one picture of each btplot kind, pgbench under bfq
# against none on shared axes, into DIR (default sample-traces/pictures,
# the pictures sample-traces/README.md shows).  The golden case
# cli/btplot/pictures checks that the committed ones are what this
# writes now.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BTKIT_BIN:-$TOP/${B:-build}/bin}
dir=${1:-$TOP/sample-traces/pictures}
export LC_ALL=C
mkdir -p "$dir"
cd "$TOP"
for k in heatmap offset iops depth waits; do
	"$BIN/btplot" -k "$k" -o "$dir/$k.svg" \
		bfq=sample-traces/pgbench-bfq.bin.gz \
		none=sample-traces/pgbench-none.bin.gz
done
echo "pictures: $dir/{heatmap,offset,iops,depth,waits}.svg"
