// A command that replaces the audit file with a symlink must not make the server append to the link's target.
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost, localEnvironment } from '../../src/index.js';
import { HostMetrics } from '../../src/providers/observability/host-metrics.js';
import { auditLines, sample, tempDir } from '../support/observability-kit.js';

describe('the audit file and a symlink planted in its place', () => {
  it('refuses to follow the link: the target stays untouched and the lost record is counted', async () => {
    const tmp = tempDir('observe-symlink-');
    const file = path.join(tmp.dir, 'audit.jsonl');
    const target = path.join(tmp.dir, 'victim');
    writeFileSync(target, 'precious\n');
    const host = await createHost(...localEnvironment({ workspace: tmp.dir, audit: { file } }));
    try {
      const session = host.openSession({ cwd: tmp.dir });
      // The first call's record opens the file; the planted link waits for the next open.
      await session.call('bash', { command: 'true', description: 'first' });
      expect(auditLines(file)).toHaveLength(1);
      // A fresh sink (a restart) meets the link the command planted.
      await host.dispose();
      rmSync(file);
      symlinkSync(target, file);
      const restarted = await createHost(...localEnvironment({ workspace: tmp.dir, audit: { file } }));
      try {
        const result = await restarted.call('bash', { command: 'true', description: 'second' });
        expect(result.isError).toBeFalsy();
        expect(readFileSync(target, 'utf8')).toBe('precious\n');
        const text = (await restarted.get(HostMetrics).exposition()).text;
        expect(sample(text, 'dsh_audit_failures_total')).toBe(1);
      } finally {
        await restarted.dispose();
      }
    } finally {
      await host.dispose();
      if (existsSync(tmp.dir)) tmp.remove();
    }
  });
});
