import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProgressReporter } from '../../../../src/providers/exec/shell/progress-reporter.js';
import type { ExecProgress } from '../../../../src/providers/exec/shell/shell-executor.js';
import { ExecutorPool, runCommand } from '../../../support/shell-test-kit.js';

function nextReport(reports: ExecProgress[], count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (reports.length >= count) resolve();
      else setTimeout(check, 5);
    };
    check();
  });
}

describe('ProgressReporter', () => {
  it('reports bytes and the last complete non-empty line, the redrawn part of a CR line', async () => {
    const reports: ExecProgress[] = [];
    const reporter = new ProgressReporter((p) => reports.push(p), 0);
    reporter.feed(Buffer.from('partial'));
    await nextReport(reports, 1);
    expect(reports[0]).toEqual({ bytes: 7 });

    reporter.feed(Buffer.from(' line\n\n  \nnext-par'));
    await nextReport(reports, 2);
    expect(reports[1]).toEqual({ bytes: 25, lastLine: 'partial line' });

    reporter.feed(Buffer.from('t\r\n10%\r55%\r'));
    reporter.feed(Buffer.from('\n'));
    await nextReport(reports, 3);
    expect(reports[2]).toEqual({ bytes: 37, lastLine: '55%' });
    reporter.stop();
  });

  it('never splices a partial stdout line with a stderr line', async () => {
    const reports: ExecProgress[] = [];
    const reporter = new ProgressReporter((p) => reports.push(p), 0);
    reporter.feed(Buffer.from('50% done'), 0);
    reporter.feed(Buffer.from('warning\n'), 1);
    await nextReport(reports, 1);
    expect(reports[0]).toEqual({ bytes: 16, lastLine: 'warning' });
    reporter.stop();
  });

  it('coalesces bursts into one report per interval and stops cleanly', async () => {
    const reports: ExecProgress[] = [];
    const reporter = new ProgressReporter((p) => reports.push(p), 60_000);
    reporter.feed(Buffer.from('a\n'));
    await nextReport(reports, 1);
    for (let i = 0; i < 100; i++) reporter.feed(Buffer.from('b\n'));
    reporter.stop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reports).toEqual([{ bytes: 2, lastLine: 'a' }]);
  });

  it('survives a listener that throws', async () => {
    let calls = 0;
    const reporter = new ProgressReporter(() => {
      calls++;
      throw new Error('listener bug');
    }, 0);
    reporter.feed(Buffer.from('x\n'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    reporter.feed(Buffer.from('y\n'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(2);
    reporter.stop();
  });
});

describe('LocalShellExecutor.run: progress', () => {
  const pool = new ExecutorPool();
  afterEach(() => pool.disposeAll());

  it('reports output progress while the command runs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-progress-'));
    const flag = path.join(dir, 'seen');
    const reports: ExecProgress[] = [];
    try {
      // The command only goes on once the first report has arrived: no timing assumptions.
      const result = await runCommand(
        pool.make(),
        { command: `echo first; while [ ! -e ${flag} ]; do sleep 0.01; done; echo second`, timeoutMs: 20_000 },
        {
          onProgress: (progress) => {
            reports.push(progress);
            fs.writeFileSync(flag, '');
          },
        },
      );
      expect(result.stdout).toBe('first\nsecond\n');
      expect(result.timedOut).toBe(false);
      expect(reports[0]).toEqual({ bytes: 6, lastLine: 'first' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
