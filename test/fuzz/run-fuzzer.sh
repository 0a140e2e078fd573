#!/usr/bin/env bash
# Runs the frontend fuzzer for SECONDS with a fresh working corpus seeded from the
# given folders. Fails on any crash, sanitizer report, leak, timeout or OOM; the
# reproducer is left in the working directory (crash-*, leak-*, timeout-*).
set -euo pipefail
fuzzer=$1; corpus=$2; seconds=$3; shift 3
rm -rf "$corpus"; mkdir -p "$corpus"
for d in "$@"; do
  [ -d "$d" ] && find "$d" -name '*.tile' -exec cp {} "$corpus"/ \; || true
done
cd "$(dirname "$corpus")"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
  -print_final_stats=1 "$corpus"
