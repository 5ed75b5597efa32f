#!/bin/sh
# The test suite's run of a main-job program:
#   selftest.sh STATUS TEXT PROGRAM [ARGS...]
# passes when PROGRAM exits with STATUS and its output holds TEXT, so that a
# run with --tamper (which must fail) proves that the program's checks can
# fail; skips (exit 77) when the program found none of its real data.
want=$1
text=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
case $out in
  *"nothing was checked"* | *"SPP check skipped"*)
    echo "selftest: the real data are not there: skipped"
    exit 77 ;;
esac
if [ "$rc" -ne "$want" ]; then
  echo "selftest: exit status $rc, expected $want"
  exit 1
fi
case $out in
  *"$text"*) ;;
  *)
    echo "selftest: the output does not say \"$text\""
    exit 1 ;;
esac
exit 0
