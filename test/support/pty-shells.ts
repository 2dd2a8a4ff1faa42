import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BashPtyBackend } from '../../src/providers/backends/pty/bash-pty-backend.js';
import type { PtySession, SendResult } from '../../src/providers/exec/terminal/terminal-service.js';

/** Real persistent shells on a PTY for one suite, in a workspace of its own; every shell is closed after each test. */
export interface PtyShells {
  /** The suite's workspace (real path), made in `beforeAll`. */
  workspace(): string;
  open(): Promise<PtySession>;
  send(session: PtySession, command: string, env?: Record<string, string>): Promise<SendResult>;
}

/** Registers the suite's hooks (call at the top level of a test file); `prefix` names its temp workspace. */
export function ptyShells(prefix: string): PtyShells {
  const backend = new BashPtyBackend();
  const opened: PtySession[] = [];
  let workspace = '';
  beforeAll(() => {
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((session) => session.close()));
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  return {
    workspace: () => workspace,
    async open() {
      const session = await backend.open({ cwd: workspace });
      opened.push(session);
      return session;
    },
    send: (session, command, env) => session.send(command, { timeoutMs: 20_000, ...(env ? { env } : {}) }),
  };
}
