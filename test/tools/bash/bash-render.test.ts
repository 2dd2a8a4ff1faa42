import fc from 'fast-check';
import { runResult } from '../../../src/testing.js';
import { ESCALATION_HINT, parseExit, renderForeground } from '../../../src/tools/bash/bash-render.js';

import type { OneShotResult } from '../../../src/tools/bash/bash-result-value.js';

/** A one-shot result as the tool renders it (the sandbox fields are the tool's, from its plan). */
const result = (partial: Partial<OneShotResult> = {}): OneShotResult => ({ ...runResult(), ...partial });

describe('foreground rendering', () => {
  it('prints stdout alone for a clean exit', () => {
    expect(renderForeground(result({ stdout: 'hello\n' }))).toBe('hello');
  });

  it('keeps the newline of a command that printed only an empty line', () => {
    expect(renderForeground(result({ stdout: '\n' }))).toBe('\n');
  });

  it('says (no output) when both streams are empty', () => {
    expect(renderForeground(result({}))).toBe('(no output)');
    expect(renderForeground(result({ exitCode: 2 }))).toBe('(no output)\n[exit code: 2]');
  });

  it('puts stderr under a [stderr] line, after stdout that lacks a newline', () => {
    expect(renderForeground(result({ stdout: 'out', stderr: 'err\n', exitCode: 3 }))).toBe(
      'out\n[stderr]\nerr\n[exit code: 3]',
    );
    expect(renderForeground(result({ stderr: 'only err' }))).toBe('[stderr]\nonly err');
  });

  it('follows each truncated stream with its spill marker', () => {
    const text = renderForeground(
      result({
        stdout: 'tail-out\n',
        stdoutTruncated: true,
        stdoutSpillPath: '/spill/stdout',
        stderr: 'tail-err',
        stderrTruncated: true,
      }),
    );
    expect(text).toBe(
      'tail-out\n[output truncated; full output: /spill/stdout]\n[stderr]\ntail-err\n[output truncated; full output: (unavailable)]',
    );
  });

  it('orders sandbox, escalation, timeout, then the exit marker last', () => {
    const text = renderForeground(
      result({ stdout: 'x', sandboxDenied: true, sandboxMode: 'read-only', timedOut: true, timeoutMs: 50, exitCode: 1 }),
      { escalationAdvertised: true },
    );
    expect(text.split('\n')).toEqual([
      'x',
      '[sandbox: file access denied under read-only mode]',
      ESCALATION_HINT,
      '[timed out after 50ms]',
      '[exit code: 1]',
    ]);
  });

  it('reports a timeout of a command that exited 0 without a kill marker', () => {
    expect(renderForeground(result({ timedOut: true, timeoutMs: 200 }))).toBe('(no output)\n[timed out after 200ms]');
  });

  it('prefers the signal marker over an exit code', () => {
    expect(renderForeground(result({ exitCode: null, signal: 'SIGKILL' }))).toBe('(no output)\n[killed by signal: SIGKILL]');
  });
});

describe('exit parsing', () => {
  it('is the inverse of the exit marker for any output', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: -255, max: 255 }), (stdout, exitCode) => {
        const run = result({ stdout, exitCode });
        const parsed = parseExit(renderForeground(run), run);
        expect(parsed.exitCode).toBe(exitCode);
        expect(parsed.body).toBe(renderForeground(result({ stdout })));
      }),
    );
  });

  it('does not read marker-like output after a clean exit as a failure', () => {
    const run = result({ stdout: 'done\n[exit code: 9]\n' });
    expect(parseExit(renderForeground(run), run)).toEqual({ body: 'done\n[exit code: 9]', exitCode: 0 });
  });

  it('parses text alone when no typed result is at hand', () => {
    expect(parseExit('a\n[killed by signal: SIGTERM]')).toEqual({ body: 'a', signal: 'SIGTERM' });
    expect(parseExit('a\n[exit code: 4]')).toEqual({ body: 'a', exitCode: 4 });
    expect(parseExit('plain')).toEqual({ body: 'plain', exitCode: 0 });
  });
});
