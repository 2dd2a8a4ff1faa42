// The assertions of the common script, one test per case. `outcome(name)`
// reads the driver's result for that case once the run has finished.
import { createRequire } from 'node:module';
import { waitUntilGone } from '../../support/process-table.js';
import type { ClientSpec, Transport } from './client-spec.js';
import type { CaseOutcome } from './run-driver.js';

const require = createRequire(import.meta.url);
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
const AjvClass = require('ajv') as new (options: object) => { compile(schema: object): Validate };

type Outcome = (name: string) => CaseOutcome;
interface ToolView {
  name: string;
  title?: unknown;
  annotations?: Record<string, unknown>;
  outputSchema?: object;
}
interface CallView {
  text: string;
  structured?: unknown;
  asked?: string[];
}

const TOOL_NAMES = ['bash', 'task_kill', 'task_list', 'task_output'];

/** The case outcome, failing with the driver's error when the case did not succeed. */
export function succeeded(outcome: Outcome, name: string): CaseOutcome & CallView {
  const result = outcome(name);
  expect({ case: name, ok: result.ok, error: result.error }).toEqual({ case: name, ok: true, error: undefined });
  return result as CaseOutcome & CallView;
}

export function connectAndListTests(spec: ClientSpec, outcome: Outcome, era: 'legacy' | 'modern'): void {
  test('initialize: the client connects', () => {
    const connect = succeeded(outcome, 'connect');
    if (era === 'modern' && connect.protocolVersion) expect(connect.protocolVersion).toBe('2026-07-28');
  });

  const listed = { full: 'titles, annotations and output schemas that validate the result', untitled: 'annotations and output schemas that validate the result', names: 'the tool names' };
  test(`tools/list: ${listed[spec.listShape]}`, () => {
    const tools = succeeded(outcome, 'list').tools as ToolView[];
    expect(tools.map((tool) => tool.name).sort()).toEqual(expect.arrayContaining(TOOL_NAMES));
    if (spec.listShape === 'names') return;
    const ajv = new AjvClass({ strict: false, allErrors: true });
    for (const tool of tools) {
      if (spec.listShape === 'full') expect({ tool: tool.name, title: typeof tool.title }).toEqual({ tool: tool.name, title: 'string' });
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(tool.outputSchema).toBeDefined();
      ajv.compile(tool.outputSchema!);
    }
    const structured = succeeded(outcome, 'echo').structured;
    if (structured) {
      const validate = ajv.compile(tools.find((tool) => tool.name === 'bash')!.outputSchema!);
      expect({ valid: validate(structured), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    }
  });

  test('call: echo hi → the text the model sees contains "hi"', () => {
    expect(succeeded(outcome, 'echo').text).toContain('hi');
  });
}

export function callTests(spec: ClientSpec, outcome: Outcome, marker: () => string, transport: Transport): void {
  test('call: a non-zero exit → "[exit code: 3]"', () => {
    expect(succeeded(outcome, 'exit').text).toContain('[exit code: 3]');
  });

  test('call: long output → the truncation notice with its "full output:" path', () => {
    const text = succeeded(outcome, 'long').text;
    expect(text).toMatch(/\[output truncated; full output: \/[^\s\]]+\]/);
    expect(text).toContain('300000');
  });

  if (spec.structuredMode) {
    test('structured-only mode: the JSON the model gets still carries "[exit code: 3]"', () => {
      expect(succeeded(outcome, 'exitStructured').text).toContain('[exit code: 3]');
    });
  }

  if (spec.strictLint) {
    test('Inspector --strict: no schema portability warnings on the tools', () => {
      expect(succeeded(outcome, 'strict')).toMatchObject({ exitCode: 0, warnings: [] });
    });
  }

  if (!spec.session) return approvalTest(spec, outcome, spec.discoversModernOver?.includes(transport) ? 'modern' : 'legacy');
  heartbeatTest(spec, outcome);

  test('background: run_in_background, then task_output reads the result', () => {
    const background = succeeded(outcome, 'background');
    expect((background.started as CallView).text).toMatch(/started background task \S+/);
    const output = (background.output as CallView).text;
    expect(output).toContain('bg-done');
    expect(output).toContain('[status: completed');
  });

  if (spec.cancel) {
    const cancelTitle =
      spec.cancel === 'notifies' || transport === 'http'
        ? 'cancel: an aborted call settles at once, its command is gone, the next call works'
        : 'cancel: the abort settles at once and the next call works; no notifications/cancelled, so the command ends only when the client closes (drain 2 s)';
    test(cancelTitle, async () => {
      const cancel = succeeded(outcome, 'cancel');
      // Rejected, or (LangChain) turned into the error text an agent hands the model.
      const abortedText = (cancel.result as CallView | undefined)?.text ?? '';
      expect(cancel.settled === 'rejected' || /abort/i.test(abortedText)).toBe(true);
      expect(cancel.settledMs as number).toBeLessThan(10_000);
      expect((cancel.after as CallView).text).toContain('after-cancel');
      expect(await waitUntilGone(marker(), 10_000)).toEqual([]);
    });
  }

  approvalTest(spec, outcome, spec.discoversModernOver?.includes(transport) ? 'modern' : 'legacy');
}

export function badTokenTest(outcome: Outcome): void {
  test('a bad bearer token: a clear auth failure within seconds, not a hang', () => {
    const bad = outcome('badToken');
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/401|unauthori[sz]ed|authentication required/i);
    expect(bad.ms).toBeLessThan(15_000);
  });
}

const QUIET_MS = 4000;

function heartbeatTest(spec: ClientSpec, outcome: Outcome): void {
  /** Progress that came while the command was still silent (its only output is at the end). */
  const early = (quiet: CaseOutcome) => (quiet.progress as Array<{ atMs: number }>).filter((p) => p.atMs < QUIET_MS - 500);
  if (spec.progress === 'resets-timeout') {
    test('a quiet 4 s command outlives a 3 s request timeout on heartbeats (1 s interval)', () => {
      const quiet = succeeded(outcome, 'heartbeat');
      expect(quiet.text).toContain('quiet-done');
      expect(early(quiet).length).toBeGreaterThanOrEqual(1);
    });
  } else if (spec.progress === 'callback') {
    test('a quiet 4 s command: heartbeats reach the progress callback before its output (1 s interval)', () => {
      const quiet = succeeded(outcome, 'heartbeat');
      expect(quiet.text).toContain('quiet-done');
      expect(early(quiet).length).toBeGreaterThanOrEqual(1);
    });
  } else {
    test('a quiet 4 s command returns (this client passes no progress on)', () => {
      expect(succeeded(outcome, 'heartbeat').text).toContain('quiet-done');
    });
  }
}

/** 2025 era: elicitation/create; 2026-07-28 era: an input_required round trip the client answers with the same form handler. */
export function approvalTest(spec: ClientSpec, outcome: Outcome, era: 'legacy' | 'modern' = 'legacy'): void {
  if (era === 'modern') {
    if (spec.elicitation && spec.inputRequired) {
      test('approval in the 2026-07-28 era: the input_required round trip is answered through the form handler and the command runs once', () => {
        const approval = succeeded(outcome, 'approval');
        expect(approval.text).toContain('approve-me');
        expect(approval.text).not.toContain('Error:');
        if (approval.asked) expect(approval.asked.join('\n')).toContain('Rule: "interop approval"');
      });
    } else {
      test('approval in the 2026-07-28 era: this client answers no input_required form, so the call fails closed; nothing runs', () => {
        const approval = succeeded(outcome, 'approval');
        expect(approval.text).toContain('Error: command not approved');
        expect(approval.text).not.toMatch(/^approve-me$/m);
      });
    }
    return;
  }
  const asked = 'the form elicitation';
  if (spec.elicitation) {
    test(`approval: ${asked} is answered and the command runs once`, () => {
      const approval = succeeded(outcome, 'approval');
      expect(approval.text).toContain('approve-me');
      expect(approval.text).not.toContain('Error:');
      if (approval.asked) expect(approval.asked.join('\n')).toContain('Rule: "interop approval"');
    });
  } else {
    test('approval: without form elicitation the call fails closed and nothing runs', () => {
      const approval = succeeded(outcome, 'approval');
      expect(approval.text).toContain('Error: command not approved');
    });
  }
}
