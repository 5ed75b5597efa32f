#!/bin/sh
# Install, build and run every test.  Without a GPU the tests of the "gpu"
# suite report themselves skipped (exit 77).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
. scripts/env.sh
setup_build
compile_oldest_arch
status=0
meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || status=$?
# One summary line in the form CI reads.
python3 - "$BUILD/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    key = {"OK": "OK", "SKIP": "SKIP", "EXPECTEDFAIL": "OK"}.get(r, "FAIL")
    counts[key] += 1
print("tests: %d passed, %d failed, %d skipped"
      % (counts["OK"], counts["FAIL"], counts["SKIP"]))
PY
exit $status
