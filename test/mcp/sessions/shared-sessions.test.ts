// The HTTP server's side of the session registry: a record is found only for
// the caller and era that made it and while within its time; a credential is
// stored only as its hash; a failed touch keeps the session; without
// authentication every record's caller is ''.
import { SharedSessions } from '../../../src/mcp/sessions/shared-sessions.js';
import { sessionKey } from '../../../src/providers/registry/session-registry.js';
import { MemorySessionRegistry } from '../support/memory-session-registry.js';

const facts = { era: 'legacy' as const, caller: 'alice', sessionId: 'host-session-1', cwd: '/ws' };

function shared(registry = new MemorySessionRegistry(), identified = true, warnings: string[] = []): SharedSessions {
  const logger = { debug: () => undefined, info: () => undefined, warn: (line: string) => void warnings.push(line), error: () => undefined };
  return new SharedSessions({ registry, idleMs: 60_000, maxLifetimeMs: 3_600_000, identified, logger });
}

test('a record is found for the caller and era that made it, within its idle time and lifetime, and only then', async () => {
  let now = 1_000_000;
  const registry = new MemorySessionRegistry(() => now);
  const sessions = shared(registry);
  await sessions.register('credential-1', facts);
  expect(registry.records.get(sessionKey('credential-1'))).toMatchObject({ ...facts, idleMs: 60_000, maxLifetimeMs: 3_600_000 });
  expect(await sessions.find('credential-1', 'legacy', 'alice', now)).toMatchObject({ sessionId: 'host-session-1' });
  expect(await sessions.find('credential-1', 'legacy', 'bob', now)).toBeUndefined();
  expect(await sessions.find('credential-1', 'modern', 'alice', now)).toBeUndefined();
  expect(await sessions.find('credential-2', 'legacy', 'alice', now)).toBeUndefined();
  // Past its idle time and not claimed yet: serving it would bring it back.
  expect(await sessions.find('credential-1', 'legacy', 'alice', now + 60_000)).toBeUndefined();
  now += 59_000;
  expect(await sessions.touch('credential-1')).toBe(true);
  expect(await sessions.find('credential-1', 'legacy', 'alice', now + 59_000)).toBeDefined();
  expect(await sessions.find('credential-1', 'legacy', 'alice', 1_000_000 + 3_600_000)).toBeUndefined();
});

test('without authentication every record names the caller "", whoever the server calls its requests', async () => {
  const registry = new MemorySessionRegistry();
  const sessions = shared(registry, false);
  await sessions.register('credential-1', { ...facts, caller: 'default' });
  expect(registry.records.get(sessionKey('credential-1'))?.caller).toBe('');
  expect(await sessions.find('credential-1', 'legacy', 'default')).toBeDefined();
  expect(await sessions.find('credential-1', 'legacy', undefined)).toBeDefined();
});

test('touch is false once the record is removed; a registry that fails to touch keeps the session, with a warning', async () => {
  const registry = new MemorySessionRegistry();
  const warnings: string[] = [];
  const sessions = shared(registry, true, warnings);
  await sessions.register('credential-1', facts);
  expect(await sessions.remove('credential-1')).toBe(true);
  expect(await sessions.touch('credential-1')).toBe(false);
  expect(await sessions.remove('credential-1')).toBe(false);
  registry.touch = () => Promise.reject(new Error('registry unreachable'));
  expect(await sessions.touch('credential-1')).toBe(true);
  expect(warnings).toEqual([expect.stringContaining('registry unreachable')]);
});
