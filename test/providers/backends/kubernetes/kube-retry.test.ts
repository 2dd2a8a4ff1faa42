// Issue 31 item 5: an API outage is ridden out within a window, an answer (or a create that may have
// been delivered) is not repeated.
import { isTransient, retryTransient } from '../../../../src/providers/backends/kubernetes/kube-retry.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const unavailable = Object.assign(new Error('HTTP-Code: 503'), { code: 503 });
const forbidden = Object.assign(new Error('forbidden'), { code: 403 });

test('transient: not delivered always; broken or unavailable only for a repeatable request; answers never', () => {
  expect(isTransient(refused, false)).toBe(true);
  expect(isTransient(new Error('wrapped', { cause: refused }), false)).toBe(true);
  expect(isTransient(reset, true)).toBe(true);
  expect(isTransient(reset, false)).toBe(false);
  expect(isTransient(unavailable, true)).toBe(true);
  expect(isTransient(new Error('Unexpected server response: 502'), true)).toBe(true);
  expect(isTransient(forbidden, true)).toBe(false);
  expect(isTransient(Object.assign(new Error('not found'), { code: 404 }), true)).toBe(false);
});

test('retries through an outage until the answer, and stops at the first real answer', async () => {
  let attempts = 0;
  const value = await retryTransient(async () => {
    attempts++;
    if (attempts < 3) throw refused;
    return 'up';
  }, true);
  expect(value).toBe('up');
  expect(attempts).toBe(3);
  attempts = 0;
  await expect(
    retryTransient(async () => {
      attempts++;
      throw forbidden;
    }, true),
  ).rejects.toBe(forbidden);
  expect(attempts).toBe(1);
});

test('gives up with the last error once the window is spent', async () => {
  let attempts = 0;
  await expect(
    retryTransient(
      async () => {
        attempts++;
        throw unavailable;
      },
      true,
      500,
    ),
  ).rejects.toBe(unavailable);
  // 0.2 s, then 0.4 s would pass the 0.5 s window: two attempts.
  expect(attempts).toBe(2);
});
