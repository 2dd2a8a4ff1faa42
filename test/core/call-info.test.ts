// What a backend passes with a call (call id, request id, metadata) is checked once, before the call
// runs: string values only, bounded sizes, and a refusal that names keys, never values.
import { CALL_INFO_LIMITS, checkCallInfo } from '../../src/core/call-info.js';

const problemOf = (options: Parameters<typeof checkCallInfo>[0]) => {
  const checked = checkCallInfo(options);
  return 'problem' in checked ? checked.problem : undefined;
};

test('a call without options gets a fresh id and empty, frozen metadata', () => {
  const checked = checkCallInfo({}, () => 'fresh');
  expect(checked).toEqual({ callId: 'fresh', metadata: {} });
  expect(Object.isFrozen((checked as { metadata: object }).metadata)).toBe(true);
});

test("the backend's ids and metadata are kept as given, in a frozen copy", () => {
  const metadata = { tenant: 'acme', 'example.com/user': 'u-1' };
  const checked = checkCallInfo({ callId: 'req-7', requestId: '7', metadata });
  expect(checked).toEqual({ callId: 'req-7', requestId: '7', metadata });
  const kept = (checked as { metadata: Record<string, string> }).metadata;
  expect(kept).not.toBe(metadata);
  expect(Object.isFrozen(kept)).toBe(true);
  metadata.tenant = 'changed later';
  expect(kept.tenant).toBe('acme');
});

test('bad ids are refused with the rule', () => {
  expect(problemOf({ callId: '' })).toBe(`invalid callId: expected 1 to ${CALL_INFO_LIMITS.idChars} characters without control characters`);
  expect(problemOf({ callId: 'x'.repeat(CALL_INFO_LIMITS.idChars + 1) })).toMatch(/^invalid callId: expected 1 to 128/);
  expect(problemOf({ callId: 'a\nb' })).toMatch(/^invalid callId/);
  expect(problemOf({ callId: 42 as unknown as string })).toBe('invalid callId: expected a string, got a number');
  expect(problemOf({ requestId: 'a\0b' })).toMatch(/^invalid requestId/);
  expect(problemOf({ callId: 'x'.repeat(CALL_INFO_LIMITS.idChars) })).toBeUndefined();
});

test('metadata that is not an object of strings is refused, naming the key and the type', () => {
  expect(problemOf({ metadata: ['acme'] as unknown as Record<string, string> })).toBe('invalid call metadata: expected an object of string values, got an array');
  expect(problemOf({ metadata: 'tenant=acme' as unknown as Record<string, string> })).toBe('invalid call metadata: expected an object of string values, got a string');
  expect(problemOf({ metadata: new Map() as unknown as Record<string, string> })).toMatch(/got an object$/);
  expect(problemOf({ metadata: { tenant: 42 } as unknown as Record<string, string> })).toBe('invalid call metadata: "tenant" must be a string, got a number');
  expect(problemOf({ metadata: { tenant: { id: 1 } } as unknown as Record<string, string> })).toBe('invalid call metadata: "tenant" must be a string, got an object');
  expect(problemOf({ metadata: { tenant: undefined } as unknown as Record<string, string> })).toBe('invalid call metadata: "tenant" must be a string, got undefined');
});

test('attack: oversized or odd metadata is refused without echoing the value', () => {
  const secret = 'sk-live-' + 'x'.repeat(CALL_INFO_LIMITS.valueChars);
  const long = problemOf({ metadata: { token: secret } });
  expect(long).toBe(`invalid call metadata: "token" is longer than ${CALL_INFO_LIMITS.valueChars} characters`);
  expect(problemOf({ metadata: { token: 'sk-live-abc\0' } })).toBe('invalid call metadata: "token" contains a NUL character');
  const many = Object.fromEntries(Array.from({ length: CALL_INFO_LIMITS.metadataEntries + 1 }, (_, i) => [`k${i}`, 'v']));
  expect(problemOf({ metadata: many })).toBe(`invalid call metadata: ${CALL_INFO_LIMITS.metadataEntries + 1} entries, at most ${CALL_INFO_LIMITS.metadataEntries}`);
  const wide = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, 'v'.repeat(CALL_INFO_LIMITS.valueChars)]));
  expect(problemOf({ metadata: wide })).toMatch(/^invalid call metadata: \d+ characters in all, at most 16384$/);
  for (const key of ['', '__proto__', 'has space', 'a=b', '-lead', 'k'.repeat(CALL_INFO_LIMITS.keyChars + 1)]) {
    expect(problemOf({ metadata: { [key]: 'v' } })).toMatch(/^invalid call metadata: key ".*" must be 1 to 128 letters/);
  }
  const parsed = JSON.parse('{"__proto__": "polluted"}') as Record<string, string>;
  expect(problemOf({ metadata: parsed })).toMatch(/key "__proto__"/);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
