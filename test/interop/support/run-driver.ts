// Spawns one client driver (test/interop/clients/drivers/<name>.mjs) with a
// JSON config and reads the results file it writes. The driver prints
// INTEROP-WAITING when its expiry case waits; `whenWaiting` decides when the
// driver may go on (a line on its stdin).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DRIVERS_DIR } from './fixture.js';

export interface CaseOutcome {
  ok: boolean;
  ms: number;
  error?: string;
  code?: unknown;
  [field: string]: unknown;
}

export type DriverResults = Record<string, CaseOutcome | undefined>;

export interface DriverRun {
  node: string;
  driver: string;
  config: Record<string, unknown>;
  timeoutMs: number;
  whenWaiting?: () => Promise<void>;
}

export async function runDriver(run: DriverRun): Promise<{ results: DriverResults; log: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-interop-'));
  const resultFile = path.join(dir, 'results.json');
  const child = spawn(run.node, [path.join(DRIVERS_DIR, `${run.driver}.mjs`), JSON.stringify({ ...run.config, resultFile })], {
    cwd: path.dirname(DRIVERS_DIR),
    stdio: ['pipe', 'pipe', 'pipe'],
    // Clients that phone home or colour their logs stay quiet.
    env: { ...process.env, NODE_OPTIONS: '', MCP_USE_ANONYMIZED_TELEMETRY: 'false', NO_COLOR: '1', HOME: dir },
  });
  let log = '';
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    log = (log + text).slice(-20_000);
    if (text.includes('INTEROP-WAITING') && run.whenWaiting) {
      void run.whenWaiting().then(
        () => child.stdin.write('go\n'),
        () => child.stdin.write('go\n'),
      );
    }
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  try {
    return { results: JSON.parse(readFileSync(resultFile, 'utf8')) as DriverResults, log };
  } catch {
    throw new Error(`driver ${run.driver} wrote no results (exit ${code}):\n${log}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
