#!/usr/bin/env bash
# Installs the pipescope .deb into a clean Debian 12 root (debootstrap + chroot, no
# container needed) and checks what a user gets: both programs start (the app
# offscreen), the man pages, the bash completion, the .desktop entry and the MIME
# type. Needs root, debootstrap and the Debian mirror; about 5 minutes the first
# time (the clean root is cached in $PIPESCOPE_DEB_ROOT and copied for each run).
#
# Usage: tools/test-deb.sh [PACKAGE.deb]
#   without an argument: builds build/package/pipescope_*.deb with
#   `cmake --workflow --preset package` first.
# Prints one PASS/FAIL line per check and exits non-zero if any failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mirror=${PIPESCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${PIPESCOPE_DEB_ROOT:-/var/tmp/pipescope-bookworm-root}

[ "$(id -u)" -eq 0 ] || { echo "test-deb.sh: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "test-deb.sh: apt-get install debootstrap" >&2; exit 1; }

deb=${1:-}
if [ -z "$deb" ]; then
  (cd "$root" && cmake --workflow --preset package)
  deb=$(ls -t "$root"/build/package/pipescope_*.deb 2>/dev/null | head -1)
fi
[ -f "$deb" ] || { echo "test-deb.sh: no package found (${deb:-build/package/pipescope_*.deb})" >&2; exit 1; }
echo "== package: $deb"
dpkg-deb -f "$deb"

if [ ! -x "$cache/usr/bin/apt-get" ]; then
  echo "== debootstrap bookworm into $cache (once)"
  rm -rf "$cache"
  debootstrap --variant=minbase bookworm "$cache" "$mirror" >/tmp/pipescope-debootstrap.log 2>&1 ||
    { tail -20 /tmp/pipescope-debootstrap.log >&2; exit 1; }
fi
chroot_dir=$(mktemp -d /var/tmp/pipescope-deb-test.XXXXXX)
trap 'umount "$chroot_dir/proc" 2>/dev/null || true; rm -rf "$chroot_dir"' EXIT
cp -a "$cache/." "$chroot_dir/"
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$chroot_dir/proc" 2>/dev/null || true
cp "$deb" "$chroot_dir/tmp/"
in_root() { chroot "$chroot_dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

echo "== apt-get install ./$(basename "$deb") (and man-db, desktop-file-utils, shared-mime-info to check with)"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "/tmp/$(basename "$deb")" man-db desktop-file-utils shared-mime-info >/tmp/pipescope-deb-install.log 2>&1 ||
  { tail -30 /tmp/pipescope-deb-install.log >&2; exit 1; }

failed=0
check() {
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then echo "PASS  $name"; else echo "FAIL  $name"; echo "$out" | tail -15 | sed 's/^/      /'; failed=1; fi
}
check "no CUDA library among the dependencies" bash -c "! dpkg-deb -f '$deb' Depends | grep -qi cuda"
check "pipescope-cli --version" in_root pipescope-cli --version
check "pipescope-cli runs the simulator" in_root pipescope-cli run --preset multi-stream --backend sim --batches 8 --quiet
check "pipescope starts and paints (offscreen)" in_root env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=/tmp pipescope --measure-startup
check "pipescope pictures a trace file" bash -c "
  chroot '$chroot_dir' pipescope-cli run --preset naive --backend sim --batches 4 --quiet --trace /tmp/t.pipescope &&
  chroot '$chroot_dir' env QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=/tmp pipescope --screenshot /tmp/t.png --open /tmp/t.pipescope &&
  test -s '$chroot_dir/tmp/t.png'"
check "man pipescope-cli" bash -c "chroot '$chroot_dir' env LANG=C MANPAGER=cat man pipescope-cli | grep -q -- '--sample-bytes'"
check "man pipescope" bash -c "chroot '$chroot_dir' env LANG=C MANPAGER=cat man pipescope | grep -q -- '--measure-startup'"
check "bash completion offers the commands" bash -c "chroot '$chroot_dir' bash -c '
  source /usr/share/bash-completion/completions/pipescope-cli
  COMP_WORDS=(pipescope-cli r); COMP_CWORD=1; _pipescope_cli; echo \${COMPREPLY[*]}' | grep -qw run"
check "zsh completion installed" test -f "$chroot_dir/usr/share/zsh/vendor-completions/_pipescope-cli"
check ".desktop entry valid" in_root desktop-file-validate /usr/share/applications/pipescope.desktop
check "MIME type registered (*.pipescope)" test -f "$chroot_dir/usr/share/mime/application/x-pipescope.xml"
check "desktop database lists pipescope for the type" bash -c "grep -q 'application/x-pipescope=.*pipescope.desktop' '$chroot_dir/usr/share/applications/mimeinfo.cache'"
check "icons in every size" bash -c "for s in 16 22 24 32 48 64 128 256; do test -f '$chroot_dir/usr/share/icons/hicolor/'\$s'x'\$s'/apps/pipescope.png' || exit 1; done"
check "built-in profiles" test -f "$chroot_dir/usr/share/pipescope/profiles/h200.json"
if [ $failed -eq 0 ]; then echo "test-deb.sh: PASS"; else echo "test-deb.sh: FAIL"; fi
exit $failed
