import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ROOT } from '../../support/built-server.js';
import { INHERITED_FDS, nodeWithInheritedFds, WRITE_THROUGH_INHERITED, type LeakRig } from './descriptors-kit.js';

/** What the embedded host reports back: each call's text, and whether its own inherited descriptors are still open. */
export interface EmbeddedReport {
  readonly outputs: Record<string, string>;
  readonly hostStillHolds: boolean[];
}

/**
 * A node process that embeds the built library (someone else's process: its
 * descriptors must stay open in it) with INHERITED_FDS open, composes a host
 * and runs WRITE_THROUGH_INHERITED as a one-shot call twice (the second in a
 * pre-started shell), as a command over the argv limit, as a background task
 * and in the persistent shell.
 */
export async function runEmbeddedHost(rig: LeakRig, sandboxed: boolean): Promise<EmbeddedReport> {
  const entry = pathToFileURL(path.join(ROOT, 'dist/index.js')).href;
  const environment = sandboxed
    ? `sandboxedEnvironment({ workspace, sandbox: { mode: 'workspace-write' }, executor: { graceMs: 200 } })`
    : `localEnvironment({ workspace, executor: { graceMs: 200 } })`;
  const persistent = environment.replace('workspace,', "workspace, shell: 'persistent',");
  const script = `
import fs from 'node:fs';
import { createHost, localEnvironment, sandboxedEnvironment } from ${JSON.stringify(entry)};
const workspace = ${JSON.stringify(rig.workspace)};
const command = ${JSON.stringify(WRITE_THROUGH_INHERITED)};
const text = (result) => result.content.map((part) => part.text).join('');
const outputs = {};
const oneshot = await createHost(...${environment});
const session = oneshot.openSession({ cwd: workspace });
outputs.first = text(await session.call('bash', { command, description: 'first' }));
await new Promise((resolve) => setTimeout(resolve, 300));
outputs.prestarted = text(await session.call('bash', { command, description: 'second' }));
// Over the argv limit: its bash keeps the command's pipe, so the closing shell runs (over the covered stdio).
outputs.long = text(await session.call('bash', { command: ': ' + 'x'.repeat(140000) + '\\n' + command, description: 'long' }));
const done = workspace + '/background-done';
outputs.background = text(await session.call('bash', { command: command + ' > ' + done + '.tmp; mv ' + done + '.tmp ' + done, description: 'bg', run_in_background: true }));
for (let i = 0; i < 200 && !fs.existsSync(done); i++) await new Promise((resolve) => setTimeout(resolve, 50));
outputs.backgroundOutput = fs.existsSync(done) ? fs.readFileSync(done, 'utf8') : 'background never finished';
await oneshot.dispose();
const shell = await createHost(...${persistent});
outputs.persistent = text(await shell.openSession({ cwd: workspace }).call('bash', { command, description: 'persistent' }));
await shell.dispose();
const hostStillHolds = ${JSON.stringify(INHERITED_FDS)}.map((fd) => { try { fs.fstatSync(fd); return true; } catch { return false; } });
process.stdout.write(JSON.stringify({ outputs, hostStillHolds }));
`;
  const finished = await nodeWithInheritedFds(rig.target, ['--input-type=module', '-e', script]);
  try {
    return JSON.parse(finished.stdout) as EmbeddedReport;
  } catch {
    throw new Error(`the embedded host failed (code ${finished.code}): ${finished.stderr}${finished.stdout}`);
  }
}
