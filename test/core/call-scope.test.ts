// The call scope (tracing only): steps reach the running call, never one that already answered.
import { callStep, currentCallScope, runInCallScope, type CallScope } from '../../src/core/call-scope.js';

describe('call scope', () => {
  it('times steps of the running call; outside a call a step just runs', async () => {
    const steps: string[] = [];
    const scope: CallScope = { startStep: (name) => ({ end: (error) => void steps.push(`${name}:${error === undefined ? 'ok' : 'failed'}`) }) };
    await runInCallScope(scope, async () => {
      expect(await callStep('container.start', async () => 42)).toBe(42);
      await expect(callStep('pull', () => Promise.reject(new Error('no image')))).rejects.toThrow('no image');
    });
    expect(steps).toEqual(['container.start:ok', 'pull:failed']);
    expect(await callStep('outside', async () => 'ran')).toBe('ran');
    expect(currentCallScope()).toBeUndefined();
  });

  it('ignores a callback created during a call that runs after the call answered', async () => {
    const steps: string[] = [];
    const scope: CallScope = { startStep: (name) => ({ end: () => void steps.push(name) }) };
    let release!: () => void;
    let late!: Promise<void>;
    await runInCallScope(scope, async () => {
      // Created inside the call, so it carries the call's context when it runs later.
      late = new Promise<void>((resolve) => (release = resolve)).then(async () => {
        await callStep('late.step', async () => undefined);
      });
    });
    scope.ended = true;
    release();
    await late;
    expect(steps).toEqual([]);
  });

  it('keeps a step running when the observer that times it throws', async () => {
    const scope: CallScope = {
      startStep: () => {
        throw new Error('observer broke');
      },
    };
    await expect(runInCallScope(scope, () => callStep('x', async () => 'still ran'))).resolves.toBe('still ran');
  });
});
