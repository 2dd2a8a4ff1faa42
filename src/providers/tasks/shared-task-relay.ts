import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { messageOf } from '../../core/describe-value.js';
import type { Logger } from '../logging/logger.js';
import { runFiles, TASK_FILES_DIR, type RunCap } from '../exec/engine/detached-task.js';
import { CappedStreamFile } from './capped-stream-file.js';
import type { SharedTaskRecords } from './shared-task-records.js';
import type { Run } from './shared-task-snapshot.js';
import type { TaskOutcome, TaskProcess } from './task-runtime.js';

/** How often a relayed task's output is copied and a recorded kill looked for. */
const RELAY_MS = 100;

/**
 * A process this replica holds (a task a plugin started with a producer
 * of its own, not the executor's detached start): its output is copied into the run's files as
 * it comes, its end written when it ends, a kill recorded by any replica
 * carried out here. It ends with this replica. Its output is kept as a
 * detached command's is (`cap`, see runCap).
 */
export function relayTask(store: SharedTaskRecords, id: string, handle: TaskProcess, cap: RunCap, logger: Logger | undefined): void {
  const dir = path.join(store.sessionDir, TASK_FILES_DIR);
  mkdirSync(dir, { recursive: true });
  const run: Run = { containerId: '', dir, run: `r-${randomBytes(8).toString('hex')}`, tag: '', workdir: '', cap, relay: { hostname: os.hostname(), pid: process.pid } };
  const files = runFiles(run);
  const out = new CappedStreamFile(files.out, cap);
  store.write(id, 'run.json', run);
  let killing = false;
  const copy = (): void => {
    const { text } = handle.readOutput();
    if (text !== '') out.append(text);
  };
  const timer = setInterval(() => {
    try {
      copy();
      if (!killing && store.has(id, 'kill.json')) {
        killing = true;
        void handle.kill();
      }
    } catch (error) {
      logger?.warn(`task ${id}: relaying its output failed: ${messageOf(error)}`);
    }
  }, RELAY_MS);
  timer.unref();
  void Promise.resolve(handle.done)
    .then(
      (outcome): TaskOutcome => outcome,
      (error: unknown): TaskOutcome => ({ exitCode: null, signal: null, error: messageOf(error) }),
    )
    .then((outcome) => {
      clearInterval(timer);
      copy();
      if (outcome.error !== undefined) store.write(id, 'failed.json', { error: outcome.error, at: Date.now() });
      const signal = outcome.signal === null ? undefined : os.constants.signals[outcome.signal as NodeJS.Signals];
      writeFileSync(`${files.status}.tmp`, signal !== undefined ? `signal:${signal}\n` : outcome.exitCode !== null ? `exit:${outcome.exitCode}\n` : 'unknown\n');
      renameSync(`${files.status}.tmp`, files.status);
    })
    .catch((error: unknown) => logger?.warn(`task ${id}: recording its end failed: ${messageOf(error)}`));
}
