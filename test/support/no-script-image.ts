import { execFileSync } from 'node:child_process';
import { TEST_IMAGE } from './container-engine.js';

/** The test image without `script`: a container that cannot hold a terminal (its persistent shell is a TTY exec). */
export const NO_SCRIPT_IMAGE = 'dsh-tools-test:no-script';

/** The test image with a `script` that refuses `-e` as BusyBox's does: it fails at once. */
export const FAILING_SCRIPT_IMAGE = 'dsh-tools-test:failing-script';

/** Makes `NO_SCRIPT_IMAGE` from the test image (once per test image). */
export function noScriptImage(): string {
  return derivedImage(NO_SCRIPT_IMAGE, 'rm -f /usr/bin/script');
}

/** Makes `FAILING_SCRIPT_IMAGE` from the test image (once per test image). */
export function failingScriptImage(): string {
  return derivedImage(FAILING_SCRIPT_IMAGE, "rm -f /usr/bin/script && printf '#!/bin/sh\\necho \"script: invalid option -- e\" >&2\\nexit 1\\n' >/usr/bin/script && chmod 755 /usr/bin/script");
}

/** `tag`: the test image after `change` ran in it as root, committed; kept while the test image stays the same. */
function derivedImage(tag: string, change: string): string {
  const base = execFileSync('docker', ['image', 'inspect', '-f', '{{.Id}}', TEST_IMAGE], { encoding: 'utf8' }).trim();
  let made = '';
  try {
    made = execFileSync('docker', ['image', 'inspect', '-f', '{{index .Config.Labels "dsh-tools.made-from"}}', tag], { encoding: 'utf8' }).trim();
  } catch {
    // Not made yet.
  }
  if (made === base) return tag;
  const runner = execFileSync('docker', ['run', '-d', TEST_IMAGE, 'sleep', '300'], { encoding: 'utf8' }).trim();
  try {
    execFileSync('docker', ['exec', runner, 'bash', '-c', change]);
    execFileSync('docker', ['commit', '-c', 'CMD ["/bin/bash"]', '-c', `LABEL dsh-tools.made-from=${base}`, runner, tag]);
  } finally {
    execFileSync('docker', ['rm', '-f', runner]);
  }
  return tag;
}
