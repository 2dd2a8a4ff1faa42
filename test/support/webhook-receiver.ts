// A real approval-webhook receiver for the webhook suites: a node HTTP server
// on loopback that checks the server's signature with the shared secret, the
// way docs/operations.md tells a receiver to, and answers as each test says.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const SECRET = 'webhook-test-secret-0123456789abcdef';

/** `t=<seconds>,v1=<hex>` over `<t>.<body>` (independent of the server's own code). */
export function sign(body: string, secret = SECRET, seconds = Math.floor(Date.now() / 1000)): string {
  return `t=${seconds},v1=${createHmac('sha256', secret).update(`${seconds}.${body}`).digest('hex')}`;
}

/** Whether `header` signs `body` with `secret` within 300 s of now. */
export function verifies(header: string | string[] | undefined, body: string, secret = SECRET): boolean {
  const match = typeof header === 'string' ? /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) : null;
  if (!match || Math.abs(Date.now() / 1000 - Number(match[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The parsed body (`{ type, id, callback, request }`). */
  readonly json: { type: string; id: string; callback: string | null; request: Record<string, unknown> };
  /** Whether the server's signature checked out with the receiver's secret. */
  readonly signed: boolean;
}

export type Answer = (got: Received, res: ServerResponse) => void;

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Resolves with the next request (or the one already received, if `received` has more than `index`). */
  nth(index: number): Promise<Received>;
  close(): Promise<void>;
}

/** Answers `{ type: 'approval-answer', id, decision }`, signed with `secret`. */
export function answerWith(decision: string, secret = SECRET): Answer {
  return (got, res) => {
    const body = JSON.stringify({ type: 'approval-answer', id: got.json.id, decision });
    res.writeHead(200, { 'content-type': 'application/json', 'x-dsh-signature': sign(body, secret) }).end(body);
  };
}

export async function startReceiver(answer: Answer, secret = SECRET): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const got: Received = { headers: req.headers, body, json: JSON.parse(body), signed: verifies(req.headers['x-dsh-signature'], body, secret) };
      received.push(got);
      for (const wake of waiters.splice(0)) wake();
      answer(got, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    nth: async (index) => {
      while (received.length <= index) await new Promise<void>((resolve) => waiters.push(resolve));
      return received[index]!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A 0600 secret file in a fresh directory; `remove()` deletes both. */
export function secretFile(secret = SECRET, mode = 0o600): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-webhook-secret-'));
  const file = path.join(dir, 'secret');
  writeFileSync(file, `${secret}\n`);
  chmodSync(file, mode);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
