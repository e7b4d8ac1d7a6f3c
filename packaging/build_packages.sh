#!/usr/bin/env bash
# The Linux packages from the PyInstaller bundle, with tools Debian ships (dpkg-deb, tar):
#   goodbuddy-kb_VERSION_ARCH.deb        /opt/goodbuddy-kb, /usr/bin/goodbuddy-kb, menu entry, icons
#   goodbuddy-kb-VERSION-linux-ARCH.tar.gz   the bundle + install.sh (user level, XDG, no root)
# Usage: packaging/build_packages.sh BUNDLE_DIR OUT_DIR VERSION
set -euo pipefail
bundle=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
version=$3
here=$(cd "$(dirname "$0")" && pwd)
icons="$here/../src/goodbuddy_kb/ui/resources"
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
sizes="16 32 48 64 128 256 512"

test -x "$bundle/goodbuddy-kb" || { echo "no bundle at $bundle (run pyinstaller first)" >&2; exit 1; }
test -f "$icons/goodbuddy-kb.svg" || { echo "the application icon is missing in $icons" >&2; exit 1; }

# every bundled package's and model's licence, as the bundle itself reports them (its metadata)
env -i HOME="${TMPDIR:-/tmp}" PATH=/usr/bin:/bin "$bundle/goodbuddy-kb" notices > "$bundle/THIRD_PARTY_NOTICES"

# share/: the menu entry and the icon theme files, laid out as under a prefix's share/
stage_share() {  # DEST
  install -D -m 0644 "$here/goodbuddy-kb.desktop" "$1/applications/goodbuddy-kb.desktop"
  install -D -m 0644 "$icons/goodbuddy-kb.svg" "$1/icons/hicolor/scalable/apps/goodbuddy-kb.svg"
  for size in $sizes; do
    install -D -m 0644 "$icons/goodbuddy-kb-$size.png" \
      "$1/icons/hicolor/${size}x${size}/apps/goodbuddy-kb.png"
  done
}

place_bundle() {  # DEST: hard links where the file system allows, else a copy
  cp -al "$bundle" "$1" 2>/dev/null || { rm -rf "$1"; cp -a "$bundle" "$1"; }
}

# staged beside the output, so the bundle is hard-linked into both trees rather than copied
work=$(mktemp -d "$out/.staging.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- .deb -------------------------------------------------------------------------------
root="$work/deb"
mkdir -p "$root/opt" "$root/usr/bin" "$root/DEBIAN"
place_bundle "$root/opt/goodbuddy-kb"
ln -s /opt/goodbuddy-kb/goodbuddy-kb "$root/usr/bin/goodbuddy-kb"
stage_share "$root/usr/share"
chmod -R u+rwX,go+rX,go-w "$root"
installed_kb=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
# the bundle carries its libraries except the C library and the GL/X11 client ones (PyInstaller
# leaves those to the system), so it needs the glibc it was built against or newer
glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
sed -e "s/@GLIBC@/$glibc/" -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$installed_kb/" \
  "$here/deb/control" > "$root/DEBIAN/control"
for script in postinst postrm; do
  install -m 0755 "$here/deb/$script" "$root/DEBIAN/$script"
done

# --- .tar.gz tree -----------------------------------------------------------------------
name="goodbuddy-kb-$version-linux-$(uname -m)"
tree="$work/$name"
mkdir -p "$tree"
place_bundle "$tree/goodbuddy-kb"
stage_share "$tree/share"
install -m 0755 "$here/install.sh" "$tree/install.sh"

# --- both packed side by side (each compressor is single-threaded); only once both trees are
# staged, as a new hard link changes a file's ctime and tar refuses a file changing under it
deb="$out/goodbuddy-kb_${version}_${arch}.deb"
# --root-owner-group: every file root-owned without fakeroot. gzip, not xz: xz took over 7 min
# for the 590 MB bundle on a busy 2-core machine; gzip a fraction of it for a 10-20% larger file
dpkg-deb --root-owner-group -Zgzip -z6 --build "$root" "$deb" >/dev/null &
deb_job=$!
tar -C "$work" -czf "$out/$name.tar.gz" --owner=0 --group=0 "$name"
wait "$deb_job"

echo "$deb"
echo "$out/$name.tar.gz"
