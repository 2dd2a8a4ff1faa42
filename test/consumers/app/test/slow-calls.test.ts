// The observer hears every call, the built-in shell's and the consumer's tool's.
import 'reflect-metadata';
import { createHost, localEnvironment } from 'dsh-tools';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diskUsageModule } from '../src/disk-usage.tool.js';
import { slowCallsModule } from '../src/slow-calls.js';

it('reports each call that reached the threshold, with its tool and outcome', async () => {
  const lines: string[] = [];
  const workspace = mkdtempSync(path.join(tmpdir(), 'consumer-observed-'));
  const host = await createHost(...localEnvironment({ workspace }), diskUsageModule(), slowCallsModule(0, (line) => lines.push(line)));
  try {
    const session = host.openSession({ id: 'observed', cwd: workspace });
    await session.call('bash', { command: 'true', description: 'Nothing' });
    await session.call('disk_usage', { path: '.' });
    expect(lines).toEqual([
      expect.stringMatching(/^bash took [\d.]+ ms \(ok, session observed\)$/),
      expect.stringMatching(/^disk_usage took [\d.]+ ms \(ok, session observed\)$/),
    ]);
  } finally {
    await host.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
});
