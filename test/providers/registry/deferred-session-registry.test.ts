// A registry made on first use: a failed making is tried again by the next call, and leaving before anything was made does nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeferredSessionRegistry } from '../../../src/providers/registry/deferred-session-registry.js';
import { FileSessionRegistry } from '../../../src/providers/registry/file-session-registry.js';
import type { SessionRegistry } from '../../../src/providers/registry/session-registry.js';

describe('DeferredSessionRegistry', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-deferred-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tries a failed making again on the next call, then describes and serves the store it made', async () => {
    let attempts = 0;
    const deferred = new DeferredSessionRegistry('leases (not connected yet)', async (): Promise<SessionRegistry> => {
      if (++attempts === 1) throw new Error('the API server did not answer');
      return new FileSessionRegistry(path.join(dir, 'records'));
    });
    expect(deferred.describe).toBe('leases (not connected yet)');
    await expect(deferred.liveSessionIds()).rejects.toThrow('the API server did not answer');
    expect(await deferred.liveSessionIds()).toEqual(new Set());
    expect(attempts).toBe(2);
    expect(deferred.describe).toBe(`dir ${path.join(dir, 'records')}`);
  });

  it('makes nothing to leave when nothing was joined', async () => {
    let made = 0;
    const deferred = new DeferredSessionRegistry('leases', () => {
      made++;
      return Promise.resolve(new FileSessionRegistry(path.join(dir, 'records')));
    });
    await deferred.leave();
    expect(made).toBe(0);
  });
});
