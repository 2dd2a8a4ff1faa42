// The built server on stdio driven by hand, line by line, as `printf … |`
// would: for what an SDK client cannot do (keep writing after a signal, read
// answers after stdin closed). The messages themselves come from the era's
// driver (raw-legacy.ts, raw-modern.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { ensureBuilt, MAIN_JS } from './built-server.js';

export interface RawStdioServer {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** Every JSON-RPC message the server wrote, parsed. */
  readonly messages: Array<Record<string, unknown>>;
  stderr(): string;
  send(message: object): void;
  /** Resolves with the message answering request `id`. */
  answer(id: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the `count` messages written after the first `from`, as soon as they are there. */
  messagesAfter(from: number, count: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
}

export function startRawStdio(workspace: string, dshHome: string, args: string[] = [], env: Record<string, string> = {}): RawStdioServer {
  ensureBuilt();
  const child = spawn(process.execPath, [MAIN_JS, 'serve', '--workspace', workspace, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DSH_HOME: dshHome, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const messages: Array<Record<string, unknown>> = [];
  const listeners = new Set<() => void>();
  let buffered = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') messages.push(JSON.parse(line) as Record<string, unknown>);
    }
    for (const listener of listeners) listener();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  /** Resolves with `found()` once it gives something: checked on every chunk the server writes and at its exit. */
  const waitFor = <T>(found: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = found();
        if (value === undefined) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${what} within ${timeoutMs} ms; got ${JSON.stringify(messages)}; stderr:\n${stderr}`));
      }, timeoutMs);
      listeners.add(check);
      void exited.then(() => setTimeout(check, 0));
      check();
    });
  return {
    child,
    exited,
    messages,
    stderr: () => stderr,
    send: (message) => child.stdin!.write(`${JSON.stringify(message)}\n`),
    answer: (id, timeoutMs = 30_000) =>
      waitFor(() => messages.find((message) => message.id === id), `no answer to request ${id}`, timeoutMs),
    messagesAfter: (from, count, timeoutMs = 20_000) =>
      waitFor(() => (messages.length >= from + count ? messages.slice(from, from + count) : undefined), `expected ${count} messages after ${from}`, timeoutMs),
  };
}
