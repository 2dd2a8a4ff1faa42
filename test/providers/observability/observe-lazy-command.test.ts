// The call hook redacts a call's command only when an observer reads it
// (src/providers/observability/call-events.ts), and then once per call.
import path from 'node:path';
import { createHost, decorate, localEnvironment, Redactor, type DshHost } from '../../../src/index.js';
import type { ToolCallEnd, ToolCallObserver, ToolCallStart } from '../../../src/providers/observability/tool-call-observer.js';
import { auditLines, observerModule, RecordingObserver, tempDir } from '../../support/observability-kit.js';

const SECRET = 's3cr3t-lazy-value-77';
const COMMAND = `echo lazy-probe; echo ${SECRET} >/dev/null`;

/** A redactor that counts its passes over exactly `COMMAND`. */
function countingCommandRedactions(counter: { passes: number }) {
  return decorate(Redactor, (inner) => {
    const redact = inner.redact.bind(inner);
    return Object.assign(Object.create(inner) as Redactor, {
      redact: (text: string) => {
        if (text === COMMAND) counter.passes++;
        return redact(text);
      },
    });
  });
}

/** Reads the command of every event it sees, twice. */
class CommandReader implements ToolCallObserver {
  readonly name = 'command-reader';
  readonly seen: Array<string | undefined> = [];
  onCallStart(event: ToolCallStart): void {
    this.seen.push(event.command, event.command);
  }
  onCallEnd(event: ToolCallEnd): void {
    this.seen.push(event.command, event.command);
  }
}

describe('the command in call events', () => {
  let host: DshHost | undefined;
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('observe-lazy-');
  });
  afterEach(async () => {
    await host?.dispose();
    host = undefined;
    tmp.remove();
  });

  async function callWith(counter: { passes: number }, options: { observer?: ToolCallObserver; auditFile?: string }): Promise<void> {
    host = await createHost(
      ...localEnvironment({
        workspace: tmp.dir,
        redact: { values: [SECRET] },
        ...(options.auditFile === undefined ? {} : { audit: { file: options.auditFile } }),
      }),
      countingCommandRedactions(counter),
      ...(options.observer === undefined ? [] : [observerModule(options.observer)]),
    );
    const result = await host.openSession({ cwd: tmp.dir }).call('bash', { command: COMMAND, description: 'Print a probe' });
    expect(result.content[0]!.text).toBe('lazy-probe');
  }

  it('is not redacted when no observer reads it (no audit sink, no includeCommand)', async () => {
    const counter = { passes: 0 };
    const recording = new RecordingObserver();
    await callWith(counter, { observer: recording });
    expect(recording.ends).toHaveLength(1);
    expect(counter.passes).toBe(0);
    // Read afterwards, it is still the redacted command, and that costs one pass for both events.
    expect(recording.starts[0]!.command).toBe('echo lazy-probe; echo [redacted] >/dev/null');
    expect(recording.ends[0]!.command).toBe('echo lazy-probe; echo [redacted] >/dev/null');
    expect(counter.passes).toBe(1);
  });

  it('is redacted once for an observer that reads it at start and at end', async () => {
    const counter = { passes: 0 };
    const reader = new CommandReader();
    await callWith(counter, { observer: reader });
    expect(reader.seen).toEqual(Array(4).fill('echo lazy-probe; echo [redacted] >/dev/null'));
    expect(counter.passes).toBe(1);
  });

  it('is redacted once for the audit record', async () => {
    const counter = { passes: 0 };
    const file = path.join(tmp.dir, 'audit.jsonl');
    await callWith(counter, { auditFile: file });
    expect(auditLines(file).map((line) => line.command)).toEqual(['echo lazy-probe; echo [redacted] >/dev/null']);
    expect(counter.passes).toBe(1);
  });

  it('is absent for a call without a command, and reading it redacts nothing', async () => {
    const counter = { passes: 0 };
    const recording = new RecordingObserver();
    host = await createHost(...localEnvironment({ workspace: tmp.dir }), countingCommandRedactions(counter), observerModule(recording));
    await host.openSession({ cwd: tmp.dir }).call('task_list', {});
    expect(recording.ends[0]!.command).toBeUndefined();
    expect('command' in recording.ends[0]!).toBe(false);
    expect(counter.passes).toBe(0);
  });
});
