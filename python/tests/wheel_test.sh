#!/usr/bin/env bash
# The wheel of scripts/python-wheel installs offline (pip --no-index) into an
# empty directory and works from there with the library it carries: no
# TESSERA_LIBRARY_PATH, no build tree on the path.
# Usage: python/tests/wheel_test.sh BUILD_DIR PYTHON
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1 PY=${2:-python3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PY" "$ROOT/scripts/python-wheel" "$BUILD" "$TMP/dist"
"$PY" -m pip install --quiet --no-index --no-deps --target "$TMP/site" "$TMP"/dist/tessera-*.whl
cd "$TMP"
env -u TESSERA_LIBRARY_PATH PYTHONPATH="$TMP/site" TESSERA_CACHE_DIR=off "$PY" - "$ROOT" <<'PY'
import os, sys
import tessera
assert tessera.__file__.startswith(os.getcwd()), tessera.__file__
k = tessera.load(os.path.join(sys.argv[1], "examples", "vector_add.tile")).vector_add
buf = lambda: memoryview(bytearray(4 * 1000)).cast("f")
ptx = k.compile(buf(), buf(), buf()).ptx
assert ".entry" in ptx
print("wheel: installed, loaded its own libtessera.so, compiled (%d bytes of PTX)" % len(ptx))
PY
