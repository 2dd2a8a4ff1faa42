// Escape sequences built to survive the output filter (issue 33 item 5): a
// CSI inside an OSC 52 clipboard write, 8-bit C1 strings, unterminated
// strings. No result the model or a client's terminal sees (one-shot,
// persistent, task_output) may carry an ESC or a C1 control.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHost, localEnvironment, type DshHost, type HostSession, type PluginModule } from '../../src/index.js';
import { HOSTILE_ESCAPES } from '../support/hostile-escapes.js';

const text = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
/** Nothing a terminal could act on. */
const INERT = /^[^\u001b\u0080-\u009f]*$/;

/** The whole corpus as one `printf` (octal escapes: the command line carries no control byte). */
const corpusCommand = (): string => {
  const body = HOSTILE_ESCAPES.map((seq) => `${seq}|end\n`).join('');
  const octal = Buffer.from(body, 'utf8').reduce((out, byte) => out + `\\${byte.toString(8).padStart(3, '0')}`, '');
  return `printf '${octal}'; echo done`;
};

function escapeCases(environment: (workspace: string) => PluginModule[], withTasks: boolean): void {
  let host: DshHost;
  let root: string;
  let session: HostSession;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'dsh-sec-escapes-')));
    host = await createHost(...environment(root));
    session = host.openSession({ id: 'escapes', cwd: root });
  });
  afterAll(async () => {
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('the result carries no ESC or C1 control, and the text around the sequences stays', async () => {
    const result = text(await session.call('bash', { command: corpusCommand(), description: 'Print hostile escapes' }));
    expect(result).toMatch(INERT);
    expect(result).toContain('done');
    expect(result.match(/\|end/g)?.length).toBeGreaterThanOrEqual(HOSTILE_ESCAPES.length - 2);
  });

  it('ordinary text with colours reads as before', async () => {
    const result = text(await session.call('bash', { command: "printf '\\033[1;32mgreen ü\\033[0m plain\\n'", description: 'Colour' }));
    expect(result).toBe('green ü plain');
  });

  if (!withTasks) return;
  it('task_output of a background task carries none either', async () => {
    const started = text(await session.call('bash', { command: corpusCommand(), description: 'Hostile escapes', run_in_background: true }));
    const taskId = /^started background task (\S+)$/.exec(started)![1]!;
    const output = text(await session.call('task_output', { task_id: taskId, wait: true }));
    expect(output).toMatch(INERT);
    expect(output).toContain('done');
  });
}

describe('hostile escape sequences in one-shot and task_output results', () => {
  escapeCases((workspace) => localEnvironment({ workspace, shell: 'oneshot' }), true);
});

describe('hostile escape sequences in persistent results', () => {
  escapeCases((workspace) => localEnvironment({ workspace, shell: 'persistent' }), false);
});
