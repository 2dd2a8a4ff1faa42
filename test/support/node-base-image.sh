#!/usr/bin/env bash
# Builds a stand-in for the official `node` image without any registry: a
# rootfs holding this machine's node, bash, procps and a few core tools with
# their libraries, plus a `node` user (uid 1000) like the official image has,
# imported with `docker import`. Usage: node-base-image.sh [tag]
set -euo pipefail
tag="${1:-dsh-tools-node-base:test}"
if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag already present"; exit 0; fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{usr/bin,usr/lib,usr/lib64,usr/local/bin,etc,tmp,proc,sys,dev,root,run,home/node,var/tmp}
chmod 1777 "$root/tmp" "$root/var/tmp"
for link in bin lib lib64 sbin; do ln -s "usr/$link" "$root/$link" 2>/dev/null || true; done
ln -sfn bin "$root/usr/sbin"

copy() {
  local src="$1" real
  real="$(readlink -f "$src")"
  mkdir -p "$root$(dirname "$src")" "$root$(dirname "$real")"
  [ -e "$root$real" ] || cp -p "$real" "$root$real"
  [ -e "$root$src" ] || ln -s "$real" "$root$src"
}
with_libraries() {
  copy "$1"
  while read -r lib; do copy "$lib"; done < <(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' || true)
}

with_libraries "$(command -v node)"
mv "$root$(command -v node)" "$root/usr/local/bin/node" 2>/dev/null || true
tools=(bash sh dash cat sleep true false echo printf env ls mkdir rm touch cp mv ln chown chmod head tail wc grep sed
  ps kill pkill pgrep top id pwd readlink dirname basename setsid timeout date tee uname)
for tool in "${tools[@]}"; do
  bin="$(command -v "$tool" 2>/dev/null || true)"
  case "$bin" in /*) ;; *) continue ;; esac
  bin="/usr/bin/$(basename "$bin")"
  [ -e "$bin" ] && with_libraries "$bin"
done
# procps reads its libraries at run time too (libprocps is found by ldd above).
printf 'root:x:0:0:root:/root:/bin/bash\nnode:x:1000:1000::/home/node:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
chown 1000:1000 "$root/home/node"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'CMD ["node"]' - "$tag" >/dev/null
echo "built $tag"
