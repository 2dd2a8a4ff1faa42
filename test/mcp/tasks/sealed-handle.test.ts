// A 2026-07-28 task's shared record holds its session handle sealed by the task id
// (docs/shared-sessions.md#mcp-tasks): only that id opens it, and the seal shows nothing of the handle.
import { openHandle, sealHandle } from '../../../src/mcp/tasks/sealed-handle.js';

const TASK = `dsh-t-${'a'.repeat(43)}`;
const OTHER = `dsh-t-${'b'.repeat(43)}`;
const HANDLE = `dsh-s-${'Z'.repeat(43)}`;

test('the task id opens its seal; another id, a damaged seal or a non-string does not', () => {
  const sealed = sealHandle(TASK, HANDLE);
  expect(sealed).not.toContain(HANDLE);
  expect(sealed).not.toContain('Z'.repeat(8));
  expect(openHandle(TASK, sealed)).toBe(HANDLE);
  expect(openHandle(OTHER, sealed)).toBeUndefined();
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[bytes.length - 1]! ^= 1;
  expect(openHandle(TASK, bytes.toString('base64url'))).toBeUndefined();
  expect(openHandle(TASK, sealed.slice(0, 20))).toBeUndefined();
  expect(openHandle(TASK, 42)).toBeUndefined();
});

test('two seals of one handle differ (a fresh IV each time), and both open', () => {
  const first = sealHandle(TASK, HANDLE);
  const second = sealHandle(TASK, HANDLE);
  expect(first).not.toBe(second);
  expect([openHandle(TASK, first), openHandle(TASK, second)]).toEqual([HANDLE, HANDLE]);
});
