// Issue 18 row 13: `call --card` wrote the description and the command to
// the terminal as they were, so OSC 52 (clipboard write), hidden text,
// cursor moves and `\r` overwrites all reached it. Every human-facing
// rendering escapes them: cards (the built CLI), log lines (the real
// StderrLogger under a real MCP connection), `prompt` output.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHost } from '../../src/container/create-host.js';
import type { McpConnection } from '../../src/mcp/legacy/mcp-connection.js';
import { localEnvironment } from '../../src/plugins/local.environment.js';
import { StderrLogger } from '../../src/providers/logging/stderr-logger.js';
import { ensureBuilt, MAIN_JS } from '../support/built-server.js';
import { connectInProcess } from '../support/in-process-client.js';
import { markerWorkspace, RAW_CONTROL } from '../support/approval-kit.js';

/** Terminal attacks: a clipboard write, hidden text, a cursor move up, a `\r` overwrite, a C1 CSI, a bidi override. */
const OSC52 = '\x1b]52;c;cm0gLXJmIH4=\x07';
const ATTACK = `${OSC52}\x1b[8mhidden\x1b[0m\x1b[2A\rlooks harmless \u009b2J \u202eevil\u202c`;
const ESCAPED = ['\\u001b]52;c;cm0gLXJmIH4=\\u0007', '\\u001b[8mhidden', '\\u001b[2A', '\\rlooks harmless', '\\u009b2J', '\\u202eevil'];

function dsh(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN_JS, ...args], { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

let ws: ReturnType<typeof markerWorkspace>;
beforeAll(() => {
  ensureBuilt();
  ws = markerWorkspace('dsh-approval-cards-');
});
afterAll(() => ws.remove());

test('call --card: OSC 52, hidden text, cursor moves and \\r overwrites in the description and command reach the terminal only as escapes', async () => {
  const command = `true # ${ATTACK}\necho second line`;
  const run = await dsh(['call', 'bash', JSON.stringify({ command, description: `List files ${ATTACK}` }), '--card'], ws.dir);
  expect(run.code).toBe(0);
  const [title, first, second, outcome] = run.stderr.split('\n');
  expect(run.stderr).not.toMatch(RAW_CONTROL);
  for (const escape of ESCAPED) {
    expect(title).toContain(escape);
    expect(first).toContain(escape);
  }
  expect(title).toMatch(/^▸ bash — List files /);
  expect(first).toMatch(/^ {2}\$ true # /);
  // The command's own line break stays a line of the card, indented under the `$`.
  expect(second).toBe('    echo second line');
  expect(outcome).toBe('◂ exit code 0');
});

test('log lines: a tool name with an OSC 52 write and a forged second log line is logged as one escaped line', async () => {
  const host = await createHost(...localEnvironment({ workspace: ws.dir }));
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
  let connection: McpConnection | undefined;
  try {
    const linked = await connectInProcess(host, { cwd: ws.dir, logger: new StderrLogger('debug'), name: 'log-attack' });
    connection = linked.connection;
    await linked.client.callTool({ name: `bash${ATTACK}\ndsh-tools error: forged line`, arguments: {} });
  } finally {
    await connection?.close();
    process.stderr.write = write;
    await host.dispose();
  }
  const line = written.find((chunk) => chunk.includes('forged line'));
  expect(line).toBeDefined();
  expect(line).not.toMatch(RAW_CONTROL);
  expect(line!.split('\n')).toHaveLength(2); // the line and its terminator
  expect(line).toContain('\\ndsh-tools error: forged line');
  for (const escape of ESCAPED) expect(line).toContain(escape);
});

test('prompt: a configured tool description cannot drive the terminal, in text or --json output', async () => {
  const config = path.join(ws.dir, 'dsh.json');
  writeFileSync(config, JSON.stringify({ shell: 'persistent', persistent: { description: `Run commands. ${ATTACK}` } }));
  for (const extra of [[], ['--json']]) {
    const run = await dsh(['--config', config, 'prompt', ...extra], ws.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toContain('\\u202eevil');
  }
  const json = await dsh(['--config', config, 'prompt', '--json'], ws.dir);
  // Still the same JSON value: the escapes are JSON's own.
  const bash = (JSON.parse(json.stdout) as { tools: Array<{ name: string; description: string }> }).tools.find((tool) => tool.name === 'bash');
  expect(bash?.description).toBe(`Run commands. ${ATTACK}`);
});
