// Two sessions' calls of the consumer's own tool run in two containers, each
// the one that session's bash runs in, although the tool never names the
// session in its request.
import 'reflect-metadata';
import { containerEnvironment, createHost } from 'dsh-tools';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostnameModule } from '../src/hostname.tool.js';
import { DOCKER, IMAGE } from './engines.js';

(DOCKER ? it.skip : it)(`two sessions' custom-tool calls run in two containers${DOCKER}`, async () => {
  const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'consumer-containers-')));
  const host = await createHost(...containerEnvironment({ workspace, container: { image: IMAGE } }), hostnameModule());
  try {
    const [a, b] = [host.openSession({ cwd: workspace }), host.openSession({ cwd: workspace })];
    const [inA, inB] = await Promise.all([a.call('hostname', {}), b.call('hostname', {})]);
    expect(inA.content[0]?.text).toMatch(/^[0-9a-f]{12}$/);
    expect(inB.content[0]?.text).toMatch(/^[0-9a-f]{12}$/);
    expect(inA.content[0]?.text).not.toBe(inB.content[0]?.text);
    expect((await a.call('bash', { command: 'cat /etc/hostname', description: 'Where' })).content[0]?.text).toBe(inA.content[0]?.text);
    expect((await b.call('bash', { command: 'cat /etc/hostname', description: 'Where' })).content[0]?.text).toBe(inB.content[0]?.text);
  } finally {
    await host.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
});
