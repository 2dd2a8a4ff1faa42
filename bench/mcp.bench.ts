import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHost, localEnvironment, type ShellChoice } from '../dist/index.js';
import { fmt, interleaved, type Figure } from './stats.js';

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
