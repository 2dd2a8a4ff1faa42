import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost, localEnvironment, type ShellChoice } from '../dist/index.js';
import { fmt, interleaved, median, roundRobin, spread, type Figure } from './stats.js';
import { rawSpawn } from './raw-spawn.js';

/**
 * An MCP `bash` call of `true` over stdio against the same call in process,
 * for both shells. With the persistent shell the command itself costs well
 * under a millisecond, so the difference is the protocol's own cost.
 */
export async function benchMcpRoundTrip(runs: number): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const shell of ['oneshot', 'persistent'] as ShellChoice[]) {
    const client = new Client({ name: 'dsh-bench', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['dist/cli/main.js', 'serve', '--workspace', process.cwd(), '--shell', shell],
      }),
    );
    const host = await createHost(...localEnvironment({ workspace: process.cwd(), shell }));
    try {
      const session = host.openSession({ cwd: process.cwd() });
      const args = { command: 'true', description: 'Do nothing' };
      const r = await interleaved(
        runs,
        () => client.callTool({ name: 'bash', arguments: args }),
        () => session.call('bash', args),
      );
      figures.push({
        name: `MCP bash \`true\` round trip (${shell})`,
        value: fmt(r.subject),
        baseline: `in-process ${fmt(r.baseline)}`,
        ratio: r.ratio,
      });
    } finally {
      await client.close();
      await host.dispose();
    }
  }
  return figures;
}

/**
 * From the client's side: an MCP stdio `bash` call of `true` to a server with
 * pre-started shells (the default) and to one with `executor.prestart: false`,
 * against the client spawning `bash -c true` itself, all in one round robin.
 */
export async function benchMcpPrestarted(runs: number): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-'));
  const plainConfig = path.join(dir, 'plain.json');
  writeFileSync(plainConfig, JSON.stringify({ workspace: process.cwd(), executor: { prestart: false } }));
  const connect = async (extra: string[]): Promise<Client> => {
    const client = new Client({ name: 'dsh-bench', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['dist/cli/main.js', 'serve', '--workspace', process.cwd(), ...extra],
      }),
    );
    return client;
  };
  const pre = await connect([]);
  const plain = await connect(['--config', plainConfig]);
  try {
    const args = { command: 'true', description: 'Do nothing' };
    const [preMs, rawMs, plainMs] = await roundRobin(runs, [
      () => pre.callTool({ name: 'bash', arguments: args }),
      () => rawSpawn('true'),
      () => plain.callTool({ name: 'bash', arguments: args }),
    ]);
    return [
      {
        name: 'MCP stdio bash `true`, pre-started (client side)',
        value: spread(preMs!),
        baseline: `client raw spawn ${spread(rawMs!)}`,
        ratio: median(preMs!) / median(rawMs!),
        goal: 'ratio ≤ 1.0',
      },
      {
        name: 'MCP stdio bash `true`, plain path (client side)',
        value: spread(plainMs!),
        baseline: `client raw spawn ${fmt(median(rawMs!))}`,
        ratio: median(plainMs!) / median(rawMs!),
        goal: '(before: 1.74-1.87)',
      },
    ];
  } finally {
    await pre.close();
    await plain.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
