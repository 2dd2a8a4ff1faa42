// The heartbeat's own rules, on a stub host: one growing sequence over output
// reports and heartbeats, nothing after the call ends (resolved or thrown),
// none at all without a progress token or with interval 0.
import type { DshHost } from '../../../src/container/dsh-host.js';
import type { ToolProgress } from '../../../src/core/tool-contract.js';
import { DEFAULT_HEARTBEAT_MS, HeartbeatSettings, heartbeatMessage, withHeartbeat, withHeartbeatNote } from '../../../src/mcp/transport/progress-heartbeat.js';

function hostWithInterval(intervalMs: number | undefined): DshHost {
  return {
    isBound: (token: unknown) => token === HeartbeatSettings && intervalMs !== undefined,
    get: () => ({ intervalMs }),
  } as unknown as DshHost;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('heartbeats fill quiet stretches; output reports and heartbeats form one growing sequence', async () => {
  const sent: ToolProgress[] = [];
  await withHeartbeat(40, (progress) => sent.push(progress), async (onProgress) => {
    await pause(130);
    onProgress!({ bytes: 10, lastLine: 'out', elapsedMs: 130 });
    onProgress!({ bytes: 10, lastLine: 'same bytes: dropped', elapsedMs: 131 });
    await pause(130);
  });
  const lines = sent.map((progress) => progress.lastLine);
  expect(lines).toContain('out');
  expect(lines).not.toContain('same bytes: dropped');
  expect(lines.filter((line) => line?.startsWith('still running after ')).length).toBeGreaterThanOrEqual(4);
  for (let i = 1; i < sent.length; i++) expect(sent[i]!.bytes).toBeGreaterThan(sent[i - 1]!.bytes);
});

test('nothing is sent after the call ends, whether it resolved or threw', async () => {
  for (const outcome of ['resolve', 'throw'] as const) {
    const sent: ToolProgress[] = [];
    const run = withHeartbeat(20, (progress) => sent.push(progress), async () => {
      await pause(70);
      if (outcome === 'throw') throw new Error('the call failed');
    });
    if (outcome === 'throw') await expect(run).rejects.toThrow('the call failed');
    else await run;
    const atEnd = sent.length;
    expect(atEnd).toBeGreaterThanOrEqual(1);
    // Five intervals after the end: a leaked timer would have fired by now.
    await pause(100);
    expect(sent).toHaveLength(atEnd);
  }
});

test('no progress token, or interval 0: no heartbeat and no listener', async () => {
  let listener: unknown = 'unset';
  await withHeartbeat(10, undefined, async (onProgress) => {
    listener = onProgress;
    await pause(40);
  });
  expect(listener).toBeUndefined();
  const sent: ToolProgress[] = [];
  await withHeartbeat(0, (progress) => sent.push(progress), async (onProgress) => {
    await pause(40);
    onProgress!({ bytes: 3, lastLine: 'x', elapsedMs: 40 });
  });
  expect(sent.map((progress) => progress.lastLine)).toEqual(['x']);
});

test('the default interval stays well under the 60 s request timeout; the message is whole seconds', () => {
  expect(DEFAULT_HEARTBEAT_MS).toBe(15_000);
  expect(heartbeatMessage(45_900)).toBe('still running after 45s');
});

test('the instructions name the interval in force and what a client needs; no note when heartbeats are off', () => {
  const note = withHeartbeatNote('prompt', hostWithInterval(undefined))!;
  expect(note.startsWith('prompt\n\nA call that asks for progress (a progressToken) gets a progress notification at least every 15 s')).toBe(true);
  expect(note).toContain('resetTimeoutOnProgress');
  expect(withHeartbeatNote('prompt', hostWithInterval(2500))).toContain('at least every 2.5 s');
  expect(withHeartbeatNote('prompt', hostWithInterval(0))).toBe('prompt');
});
