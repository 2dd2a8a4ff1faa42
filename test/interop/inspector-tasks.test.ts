// The Inspector CLI 2.12 (Node 22) speaks the 2026-07-28 tasks extension
// (io.modelcontextprotocol/tasks, through @modelcontextprotocol/ext-tasks): with
// --protocol-era modern it declares the extension, follows the task handle a
// background bash call answers with, and prints the final result tasks/get
// carries inline — the command's output, which a plain background start does
// not contain.
import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { MAIN_JS, ensureBuilt } from '../support/built-server.js';
import { serverDirs } from '../support/mcp-clients.js';
import { httpServerForSuite } from '../support/suite-http-server.js';
import { CLIENTS_DIR, nodeFor } from './support/fixture.js';

const TOKEN = 'inspector-tasks-token-0123456789';
const runner = nodeFor(22, '@modelcontextprotocol/inspector');
const describeWithInspector = 'node' in runner ? describe : describe.skip;
const reason = 'missing' in runner ? ` (skipped: ${runner.missing})` : '';

/** One CLI run: `tools/call` of a background bash in the modern era; resolves with the printed JSON. */
function backgroundCall(target: string[], marker: string): Promise<{ text: string; raw: string }> {
  const cli = realpathSync(path.join(CLIENTS_DIR, 'node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js'));
  const args = { command: `sleep 1; echo ${marker}`, description: 'Background', run_in_background: true };
  const argv = [cli, '--format', 'json', '--connect-timeout', '60000', '--protocol-era', 'modern', '--method', 'tools/call', '--tool-name', 'bash', '--tool-args-json', JSON.stringify(args), ...target];
  return new Promise((resolve, reject) => {
    execFile((runner as { node: string }).node, argv, { timeout: 120_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`inspector failed: ${error.message}\n${stderr}`));
      const printed = JSON.parse(stdout) as { result?: { content?: Array<{ text?: string }> } };
      resolve({ text: (printed.result?.content ?? []).map((block) => block.text ?? '').join(''), raw: stdout });
    });
  });
}

describeWithInspector(`Inspector CLI 2.12, 2026-07-28 tasks extension${reason}`, () => {
  const suite = httpServerForSuite({ token: TOKEN });

  test('stdio: the background call is followed as a task to its output', async () => {
    ensureBuilt();
    const dirs = serverDirs();
    try {
      const target = ['-e', `DSH_HOME=${dirs.dshHome}`, '--', process.execPath, MAIN_JS, 'serve', '--workspace', dirs.workspace];
      const { text } = await backgroundCall(target, 'inspector-stdio-task');
      expect(text).toMatch(/^inspector-stdio-task\n\[status: completed, exit code: 0\]\n\n\[session: dsh-s-/);
    } finally {
      dirs.cleanup();
    }
  }, 120_000);

  test('HTTP: the background call is followed as a task to its output', async () => {
    const target = ['--transport', 'http', '--server-url', suite.server.url.toString(), '--header', `Authorization: Bearer ${TOKEN}`, '--stored-auth-only'];
    const { text } = await backgroundCall(target, 'inspector-http-task');
    expect(text).toMatch(/^inspector-http-task\n\[status: completed, exit code: 0\]\n\n\[session: dsh-s-/);
  }, 120_000);
});
