#!/usr/bin/env python3
"""Checks one bad program against the diagnostics it must produce.

Usage: check.py TESSERA FILE.tile

FILE.tile states its expectations in comments:
    // args: --dim N=100            extra arguments for `tessera compile` (optional)
    // expect-error 4:12: MESSAGE    one per error, in the order they are reported
    // expect-note 2:8: MESSAGE      notes are checked only when some are expected
The program is compiled with `tessera compile FILE --emit tile`. The check
passes when the exit status is 1, every error line is exactly
`FILE:LINE:COL: error: MESSAGE` with the expected position and text (no more, no
fewer), and each is followed by the source line and a caret under the column.
"""
import os
import re
import subprocess
import sys


def main():
    tessera, path = os.path.abspath(sys.argv[1]), sys.argv[2]
    name = os.path.basename(path)
    src = open(path, encoding="utf-8", errors="surrogateescape").read().split("\n")
    args, errors, notes = [], [], []
    for line in src:
        m = re.match(r"\s*//\s*args:\s*(.*)$", line)
        if m:
            args += m.group(1).split()
        m = re.match(r"\s*//\s*expect-(error|note) (\d+):(\d+): (.*)$", line)
        if m:
            (errors if m.group(1) == "error" else notes).append(
                (int(m.group(2)), int(m.group(3)), m.group(4).rstrip()))
    if not errors:
        print(f"{name}: no expect-error line")
        return 1
    proc = subprocess.run([tessera, "compile", name, "--emit", "tile", *args],
                          cwd=os.path.dirname(os.path.abspath(path)),
                          capture_output=True, timeout=60)
    out = proc.stderr.decode("utf-8", errors="surrogateescape").split("\n")
    ok = True
    if proc.returncode != 1:
        print(f"{name}: exit status {proc.returncode}, expected 1")
        ok = False
    got = {"error": [], "note": []}
    pat = re.compile(re.escape(name) + r":(\d+):(\d+): (error|note|warning): (.*)$")
    for i, line in enumerate(out):
        m = pat.match(line)
        if not m:
            continue
        l, c, kind, msg = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if kind in got:
            got[kind].append((l, c, msg))
        # The source line and the caret follow every located diagnostic.
        want_src = src[l - 1] if 0 < l <= len(src) else ""
        if i + 2 >= len(out) or out[i + 1] != want_src or out[i + 2].rstrip() != (
                "".join("\t" if ch == "\t" else " " for ch in want_src[:c - 1]) + "^"):
            print(f"{name}: diagnostic at {l}:{c} lacks its source line and caret")
            ok = False
    checks = [("error", errors)] + ([("note", notes)] if notes else [])
    for kind, want in checks:
        if got[kind] != want:
            ok = False
            print(f"{name}: {kind}s differ")
            for w in want:
                print(f"  expected {w[0]}:{w[1]}: {w[2]}")
            for g in got[kind]:
                print(f"  got      {g[0]}:{g[1]}: {g[2]}")
    if not ok:
        print("--- stderr ---")
        print("\n".join(out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
