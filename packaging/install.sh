#!/bin/sh
# GoodBuddy KB, user-level install from the portable .tar.gz: no root, XDG directories.
#
#   ./install.sh               install (or update) for this user
#   ./install.sh --uninstall   remove it again (also: ~/.local/lib/goodbuddy-kb/uninstall.sh)
#
# Where things go (XDG_DATA_HOME defaults to ~/.local/share):
#   the program       ~/.local/lib/goodbuddy-kb/
#   the command       ~/.local/bin/goodbuddy-kb (a link; ~/.local/bin is on PATH on most desktops)
#   the menu entry    $XDG_DATA_HOME/applications/goodbuddy-kb.desktop
#   the icons         $XDG_DATA_HOME/icons/hicolor/*/apps/goodbuddy-kb.{png,svg}
# Your libraries live in $XDG_DATA_HOME/goodbuddy-kb; neither install nor uninstall touches it.
set -eu

data_home=${XDG_DATA_HOME:-$HOME/.local/share}
prefix=$HOME/.local/lib/goodbuddy-kb
bin_dir=$HOME/.local/bin
icon_sizes="16 32 48 64 128 256 512"

uninstall() {
  rm -rf "$prefix"
  rm -f "$bin_dir/goodbuddy-kb" "$data_home/applications/goodbuddy-kb.desktop"
  rm -f "$data_home/icons/hicolor/scalable/apps/goodbuddy-kb.svg"
  for size in $icon_sizes; do
    rm -f "$data_home/icons/hicolor/${size}x${size}/apps/goodbuddy-kb.png"
  done
  refresh
  echo "GoodBuddy KB is uninstalled. Your data in $data_home/goodbuddy-kb was left as it is."
}

refresh() {
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$data_home/applications" 2>/dev/null || true
  fi
}

if [ "${1:-}" = "--uninstall" ]; then
  uninstall
  exit 0
fi
if [ -n "${1:-}" ]; then
  echo "usage: $0 [--uninstall]" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
test -x "$here/goodbuddy-kb/goodbuddy-kb" || { echo "run install.sh from the unpacked archive" >&2; exit 1; }

# a fresh copy next to the old one, swapped in at the end: an update never leaves half a program
mkdir -p "$(dirname "$prefix")" "$bin_dir" "$data_home/applications"
rm -rf "$prefix.new"
cp -R "$here/goodbuddy-kb" "$prefix.new"
cp "$here/install.sh" "$prefix.new/install.sh"
cat > "$prefix.new/uninstall.sh" <<UNINSTALL
#!/bin/sh
exec sh "$prefix/install.sh" --uninstall
UNINSTALL
chmod 0755 "$prefix.new/install.sh" "$prefix.new/uninstall.sh"
rm -rf "$prefix"
mv "$prefix.new" "$prefix"
ln -sf "$prefix/goodbuddy-kb" "$bin_dir/goodbuddy-kb"

# the menu entry runs the program by its absolute path: ~/.local/bin may not be on the
# desktop session's PATH
sed -e "s|^Exec=goodbuddy-kb|Exec=$prefix/goodbuddy-kb|" -e "s|^TryExec=goodbuddy-kb|TryExec=$prefix/goodbuddy-kb|" \
  "$here/share/applications/goodbuddy-kb.desktop" > "$data_home/applications/goodbuddy-kb.desktop"
mkdir -p "$data_home/icons/hicolor/scalable/apps"
cp "$here/share/icons/hicolor/scalable/apps/goodbuddy-kb.svg" "$data_home/icons/hicolor/scalable/apps/"
for size in $icon_sizes; do
  mkdir -p "$data_home/icons/hicolor/${size}x${size}/apps"
  cp "$here/share/icons/hicolor/${size}x${size}/apps/goodbuddy-kb.png" \
    "$data_home/icons/hicolor/${size}x${size}/apps/"
done
refresh

# Qt's X11 plugin loads the xcb utility libraries from the system where the bundle does not carry
# them; Qt's own message, when the window fails to open, names only one. Name them all now, with
# the Debian/Ubuntu package of each (libxcb-icccm.so.4 -> libxcb-icccm4, libxkbcommon-x11.so.0 ->
# libxkbcommon-x11-0)
missing_x11_libraries() {
  plugin=$(find "$prefix/_internal" -path '*/platforms/libqxcb.so' 2>/dev/null | head -n 1)
  if [ -z "$plugin" ] || ! command -v ldd >/dev/null 2>&1; then
    return 0
  fi
  LD_LIBRARY_PATH="$prefix/_internal" ldd "$plugin" 2>/dev/null | awk '/not found/ {print $1}' | sort -u
}
missing=$(missing_x11_libraries | tr '\n' ' ')
if [ -n "$missing" ]; then
  packages=$(for lib in $missing; do
    echo "$lib" | sed -e 's/\.so\./ /' | awk '{n = tolower($1); if (n ~ /[0-9]$/) n = n "-"; print n $2}'
  done | tr '\n' ' ')
  echo "Warning: the window cannot open on X11 until these system libraries are installed: $missing"
  echo "  On Debian or Ubuntu: sudo apt install $packages"
  echo "  (The command line works without them.)"
fi

echo "GoodBuddy KB is installed in $prefix."
echo "Open it from the application menu, or run: $bin_dir/goodbuddy-kb"
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "($bin_dir is not on your PATH; add it to run 'goodbuddy-kb' by name.)" ;;
esac
