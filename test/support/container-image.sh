#!/usr/bin/env bash
# Builds the small test image the container suites use, without any registry:
# a rootfs holding bash, coreutils, procps and their libraries copied from this
# machine, imported with `docker import`. Usage: container-image.sh [tag]
set -euo pipefail
tag="${1:-dsh-tools-test:latest}"
# Raised whenever the tools change: an image built from an older list is built again.
version=2
present="$(docker image inspect -f '{{index .Config.Labels "dsh-tools.test-image"}}' "$tag" 2>/dev/null || true)"
if [ "$present" = "$version" ]; then echo "$tag already present"; exit 0; fi

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{usr/bin,usr/lib,usr/lib64,etc,tmp,proc,sys,dev,root,run,home,var/tmp}
chmod 1777 "$root/tmp" "$root/var/tmp"
for link in bin lib lib64 sbin; do ln -s "usr/$link" "$root/$link" 2>/dev/null || true; done
ln -sfn bin "$root/usr/sbin"

tools=(bash sh dash cat sleep true false echo printf env ls mkdir rm touch cp mv head tail wc grep sed
  ps kill pkill pgrep id pwd readlink seq dd yes sort uniq tr cut test stat chmod dirname basename
  timeout setsid nproc uname date tee xargs find stty script)
copy() {
  local src="$1" real
  real="$(readlink -f "$src")"
  mkdir -p "$root$(dirname "$src")" "$root$(dirname "$real")"
  [ -e "$root$real" ] || cp -p "$real" "$root$real"
  [ -e "$root$src" ] || ln -s "$real" "$root$src"
}
for tool in "${tools[@]}"; do
  bin="$(command -v "$tool" 2>/dev/null || true)"
  case "$bin" in /*) ;; *) continue ;; esac
  bin="/usr/bin/$(basename "$bin")"
  [ -e "$bin" ] || continue
  copy "$bin"
  while read -r lib; do copy "$lib"; done < <(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*' || true)
done
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change 'ENV DSH_IMAGE_VAR=from-image' \
  --change 'CMD ["/bin/bash"]' --change "LABEL dsh-tools.test-image=$version" - "$tag" >/dev/null
echo "built $tag"
