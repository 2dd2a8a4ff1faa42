#!/usr/bin/env bash
# Plays the outside user against the packed tarball (run after `npm run build`):
#  1. each fixture in test/consumers (cjs, esm) = app/ + its own settings, in a
#     temp dir: install the tarball and the fixture's devDependencies (from the
#     npm cache when it has them), type-check, compile, run a real session,
#     run its jest suite over dsh-tools/testing (cjs: plain ts-jest, no VM flag)
#     and real shells, the bwrap sandbox and Docker (those cases are skipped,
#     the reason in their names, where the engine does not answer);
#  2. an install with python/make/g++ hidden from PATH: it succeeds and serves
#     the one-shot shell; it is also a local-only install (no optional peer
#     dependencies): the compositions that need one fail naming it, in both
#     builds, and `doctor` names dockerode; then, with both PTY modules
#     removed, only the persistent shell is pending and `doctor` says what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
step() { echo "consumer-check: $*"; }
bounded() { timeout "${CONSUMER_STEP_TIMEOUT:-300}" "$@"; }

[ -f dist/index.js ] && [ -f dist/cjs/index.js ] || { echo "consumer-check: build first (npm run build)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
install=(npm install --prefer-offline --no-audit --no-fund --loglevel=error)

for kind in cjs esm; do
  dir="$work/$kind"
  mkdir -p "$dir"
  cp -R test/consumers/app/. "$dir/"
  cp -R "test/consumers/$kind/." "$dir/"
  cd "$dir"
  step "$kind: install"
  bounded "${install[@]}" "$tarball"
  step "$kind: tsc"
  bounded npx tsc -p tsconfig.json
  if [ -f tsconfig.node16.json ]; then bounded npx tsc -p tsconfig.node16.json; fi
  step "$kind: real session"
  bounded node dist/src/main.js | node "$root/test/consumers/expect-session.cjs"
  if [ -f require-check.js ]; then bounded node require-check.js; fi
  step "$kind: jest"
  # The whole log when a test fails (it names the test), its summary otherwise.
  log="$work/$kind-jest.log"
  # jest's cache in the temp dir too (its default is one shared under /tmp).
  JEST_CACHE="$work/jest-cache"
  if [ "$kind" = esm ]; then
    NODE_OPTIONS=--experimental-vm-modules bounded npx jest --ci --cacheDirectory "$JEST_CACHE" >"$log" 2>&1 || { cat "$log"; exit 1; }
  else
    env -u NODE_OPTIONS timeout "${CONSUMER_STEP_TIMEOUT:-300}" npx jest --ci --cacheDirectory "$JEST_CACHE" >"$log" 2>&1 || { cat "$log"; exit 1; }
  fi
  tail -n 5 "$log"
  step "$kind: jest exits by itself after a forgotten shell, --detectOpenHandles quiet"
  if [ "$kind" = esm ]; then vm=--experimental-vm-modules; else vm=; fi
  forgotten="$(NODE_OPTIONS="$vm" timeout 120 npx jest --ci --cacheDirectory "$JEST_CACHE" --detectOpenHandles test/forgotten-shell.test.ts 2>&1)" || { echo "$forgotten"; exit 1; }
  if grep -Eiq 'open handle|did not exit' <<<"$forgotten" || ! grep -Fq DSH_FORGOTTEN_SHELL <<<"$forgotten"; then echo "$forgotten"; exit 1; fi
  cd "$root"
done

# A PATH with every command of the usual bin directories except compilers and python.
nocc="$work/no-compiler-bin"
mkdir -p "$nocc"
for bin in "$(dirname "$(command -v node)")" /usr/local/bin /usr/bin /bin; do
  for tool in "$bin"/*; do
    name="$(basename "$tool")"
    case "$name" in
      python* | make | gmake | cc | c++ | cpp | gcc* | g++* | clang* | *-gcc* | *-g++* | node-gyp) continue ;;
    esac
    [ -e "$nocc/$name" ] || ln -s "$tool" "$nocc/$name"
  done
done
dir="$work/no-compiler"
mkdir -p "$dir"
echo '{ "name": "dsh-consumer-no-compiler", "private": true }' >"$dir/package.json"
# Run from the project's own directory: from inside this repository `dsh-tools` would resolve to itself.
cp test/consumers/no-compiler-check.cjs test/consumers/local-only-check.cjs "$dir/"
cd "$dir"
step "no compiler: install"
! PATH="$nocc" command -v g++ >/dev/null && ! PATH="$nocc" command -v python3 >/dev/null
PATH="$nocc" bounded "${install[@]}" "$tarball"
PATH="$nocc" bounded node no-compiler-check.cjs pty
step "local only: $(du -sh node_modules | cut -f1) installed; the optional packages are not"
PATH="$nocc" bounded node local-only-check.cjs require
PATH="$nocc" bounded node local-only-check.cjs import
PATH="$nocc" bounded npx --no-install dsh-tools call bash '{"command":"echo cli works","description":"Echo"}' | grep -Fx 'cli works' >/dev/null
doctor="$(PATH="$nocc" bounded npx --no-install dsh-tools doctor 2>&1 || true)"
grep -F 'npm install dockerode' <<<"$doctor" >/dev/null || { echo "$doctor"; exit 1; }
PATH="$nocc" bounded npx --no-install dsh-tools doctor 2>&1 | grep -F node-pty || true
rm -rf node_modules/node-pty node_modules/@lydell
PATH="$nocc" bounded node no-compiler-check.cjs none
doctor="$(PATH="$nocc" bounded npx --no-install dsh-tools doctor 2>&1 || true)"
grep -F 'install @lydell/node-pty (prebuilt binaries) or node-pty' <<<"$doctor" >/dev/null || { echo "$doctor"; exit 1; }
step "no compiler: doctor names what to install"
step "all passed"
