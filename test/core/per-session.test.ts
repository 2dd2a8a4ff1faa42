// PerSession: one provider's state per session, in the session's scope, and
// the set of open ones its own disposal walks.
import { jest } from '@jest/globals';
import { PerSession } from '../../src/core/per-session.js';
import { fakeSession } from '../support/fake-session.js';

test('made once per session object, found only by that object, released with its session', async () => {
  const released: string[] = [];
  const states = new PerSession<{ owner: string }>('the test state', {}, (session) => ({ owner: session.id }), (state) => void released.push(state.owner));
  const mine = fakeSession('shared');
  const twin = fakeSession('shared');
  const state = states.of(mine);
  expect(states.of(mine)).toBe(state);
  expect(states.existing(mine)).toBe(state);
  expect(states.existing(twin)).toBeUndefined();
  expect(states.existing('shared')).toBeUndefined();
  expect(states.open()).toEqual([state]);
  expect(states.isOpen(state)).toBe(true);

  await mine.dispose();
  expect(released).toEqual(['shared']);
  expect(states.open()).toEqual([]);
  expect(states.isOpen(state)).toBe(false);
  expect(() => states.of(mine)).toThrow('the session is disposed: no the test state for it');
});

test('a release that fails still leaves the open set (the scope logs the failure)', async () => {
  const states = new PerSession<object>('the failing state', {}, () => ({}), () => {
    throw new Error('cannot release');
  });
  const session = fakeSession('s');
  states.of(session);
  const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  let warnings: unknown[];
  try {
    await session.dispose();
  } finally {
    warnings = emitted.mock.calls.map(([message]) => message);
    emitted.mockRestore();
  }
  expect(states.open()).toEqual([]);
  expect(warnings).toEqual(['session s: disposing the failing state failed: Error: cannot release']);
});
