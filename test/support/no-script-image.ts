import { execFileSync } from 'node:child_process';
import { TEST_IMAGE } from './container-engine.js';

/** The test image without `script`: a sandbox that cannot hold a terminal (its persistent shell is a TTY exec). */
export const NO_SCRIPT_IMAGE = 'dsh-tools-test:no-script';

/** Makes `NO_SCRIPT_IMAGE` from the test image (once: an image of the current test image is kept). */
export function noScriptImage(): string {
  const base = execFileSync('docker', ['image', 'inspect', '-f', '{{.Id}}', TEST_IMAGE], { encoding: 'utf8' }).trim();
  const made = (() => {
    try {
      return execFileSync('docker', ['image', 'inspect', '-f', '{{index .Config.Labels "dsh-tools.made-from"}}', NO_SCRIPT_IMAGE], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  if (made === base) return NO_SCRIPT_IMAGE;
  // A container that removes it, committed: `docker cp` cannot delete.
  const runner = execFileSync('docker', ['run', '-d', TEST_IMAGE, 'sleep', '300'], { encoding: 'utf8' }).trim();
  try {
    execFileSync('docker', ['exec', runner, 'rm', '-f', '/usr/bin/script']);
    execFileSync('docker', ['commit', '-c', 'CMD ["/bin/bash"]', '-c', `LABEL dsh-tools.made-from=${base}`, runner, NO_SCRIPT_IMAGE]);
  } finally {
    execFileSync('docker', ['rm', '-f', runner]);
  }
  return NO_SCRIPT_IMAGE;
}
