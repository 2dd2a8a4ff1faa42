import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, spread, timeOnce, type Figure } from './stats.js';
import { rawSpawn } from './raw-spawn.js';

/** Calls in one block; the first of each block follows the other subject's block and is not counted. */
const BLOCK = 10;
const PACE_MS = 50;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Blocks of `BLOCK` samples of the subject, then of the baseline, alternating
 * until each has `runs` counted samples; `gapMs` after every sample (0: back
 * to back, so whatever a call leaves running, such as the pre-started shell's
 * refill, overlaps the next call of its own block, never the other subject's).
 */
async function blocks(runs: number, subject: () => Promise<unknown>, baseline: () => Promise<unknown>, gapMs: number): Promise<[number[], number[]]> {
  const samples: [number[], number[]] = [[], []];
  while (samples[0].length < runs) {
    for (const [index, run] of [subject, baseline].entries()) {
      for (let i = 0; i < BLOCK + 1; i++) {
        const ms = await timeOnce(run);
        if (i > 0) samples[index]!.push(ms);
        if (gapMs > 0) await pause(gapMs);
      }
    }
  }
  return samples;
}

/**
 * From the client's side: MCP stdio `bash` calls of `true` to a server with
 * pre-started shells, issued back to back and 50 ms apart, each against the
 * client's own raw spawns of `bash -c true` issued the same way in the same
 * run. The round-robin figure (bench/mcp.bench.ts) lets each pre-started
 * shell refill while the raw spawn runs, which flatters the pre-started call.
 */
export async function benchMcpPace(runs: number): Promise<Figure[]> {
  const client = new Client({ name: 'dsh-bench', version: '0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ['dist/cli/main.js', 'serve', '--workspace', process.cwd()] }),
  );
  try {
    const args = { command: 'true', description: 'Do nothing' };
    const call = () => client.callTool({ name: 'bash', arguments: args });
    const raw = () => rawSpawn('true');
    // Warm-up: the server's first calls load the validation and the SDK's call path.
    for (let i = 0; i < BLOCK; i++) await call();
    const figures: Figure[] = [];
    for (const [label, gapMs] of [['back to back', 0], [`${PACE_MS} ms apart`, PACE_MS]] as const) {
      const [callMs, rawMs] = await blocks(runs, call, raw, gapMs);
      figures.push({
        name: `MCP stdio bash \`true\`, pre-started, ${label} (client side)`,
        value: spread(callMs),
        baseline: `client raw spawns ${label} ${spread(rawMs)}`,
        ratio: median(callMs) / median(rawMs),
        goal: 'ratio ≤ 1.0',
      });
    }
    return figures;
  } finally {
    await client.close();
  }
}
