import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The image `test/support/container-image.sh` builds (no registry needed). */
export const TEST_IMAGE = 'dsh-tools-test:latest';

function engineReady(): boolean {
  // The CLI is only this check's probe; product code talks to the engine through dockerode.
  if (spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { stdio: 'ignore', timeout: 10_000 }).status !== 0) return false;
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'container-image.sh');
  return spawnSync('bash', [script, TEST_IMAGE], { stdio: 'ignore', timeout: 120_000 }).status === 0;
}

/**
 * Whether a container engine answers and the test image exists (built here
 * if missing). `.ci/run` starts dockerd; elsewhere the container suites are
 * skipped under a name that says why.
 */
export const engineUsable: boolean = engineReady();

export const NEEDS_ENGINE = engineUsable ? '' : ' (skipped: needs a Docker engine — apt-get install -y docker.io and start dockerd)';

/** `describe` when the engine works, else `describe.skip` (the reason is in NEEDS_ENGINE, appended to the name). */
export const describeWithEngine: jest.Describe = engineUsable ? describe : describe.skip;
