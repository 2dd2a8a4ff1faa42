// What this machine offers the suites that need a real sandbox or container.
// CI has both; elsewhere the case is skipped with the reason in its name.
import { spawnSync } from 'node:child_process';

export const IMAGE = 'dsh-tools-test:latest';

const answers = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

export const DOCKER = answers('docker', ['image', 'inspect', IMAGE]) ? '' : ` (skipped: no Docker engine answers with the image ${IMAGE})`;
export const BWRAP = answers('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true']) ? '' : ' (skipped: bubblewrap cannot confine here)';
