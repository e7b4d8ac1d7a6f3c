#!/usr/bin/env bash
# The install tests of the .deb (as root only) and the .tar.gz, side by side (each spends most of
# its time waiting on a backend starting or a model loading, so two fit a 2-core machine).
# Usage: packaging/test_install.sh VERSION DIST_DIR [PYTHON]
set -uo pipefail
version=$1
dist=$2
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
started=$SECONDS

deb_status=0
if [ "$(id -u)" = 0 ]; then
  "$python" "$here/test_install.py" --version "$version" --deb "$dist"/goodbuddy-kb_"$version"_*.deb \
    > "$logs/deb.log" 2>&1 &
  deb_job=$!
else
  echo "not root: the .deb install test is skipped" > "$logs/deb.log"
  deb_job=""
fi
"$python" "$here/test_install.py" --version "$version" \
  --tarball "$dist"/goodbuddy-kb-"$version"-linux-*.tar.gz > "$logs/tar.log" 2>&1
tar_status=$?
if [ -n "$deb_job" ]; then
  wait "$deb_job"
  deb_status=$?
fi
cat "$logs/deb.log" "$logs/tar.log"
echo "install tests: $((SECONDS - started)) s (deb exit $deb_status, tar.gz exit $tar_status)"
[ "$deb_status" = 0 ] && [ "$tar_status" = 0 ]
