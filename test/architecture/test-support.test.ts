// Where the tests' shared fixtures live (issue 36): what more than one folder
// of test/ uses sits in test/support/, a suite's own support folder serves
// that suite alone, one in-memory MCP connection and one raw driver per
// protocol era, so a reader finds each once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, sourceFiles } from './source-tree.js';

const TEST = path.join(ROOT, 'test');
const SHARED = path.join(TEST, 'support');

/** Test files that are neither specs nor the installed consumer and client fixtures. */
const files = sourceFiles(TEST).filter((file) => !/[/\\](consumers|interop[/\\]clients)[/\\]/.test(file));
const rel = (file: string): string => path.relative(TEST, file).split(path.sep).join('/');
const folderOf = (file: string): string => rel(file).split('/')[0]!;

function importsOf(file: string): string[] {
  const specs = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return specs.map((spec) => path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** Who reads a file, and what it says, for the literal checks below. */
const readers = new Map<string, Set<string>>();
for (const file of files) {
  for (const target of importsOf(file)) {
    if (!target.startsWith(TEST + path.sep)) continue;
    readers.set(target, (readers.get(target) ?? new Set()).add(folderOf(file)));
  }
}
const writing = (literal: RegExp): string[] => files.filter((file) => literal.test(readFileSync(file, 'utf8'))).map(rel).sort();

describe('test fixtures', () => {
  it('puts every helper that more than one folder of test/ imports in test/support/', () => {
    const stray = [...readers]
      .filter(([file, folders]) => folders.size > 1 && !file.endsWith('.test.ts') && path.dirname(file) !== SHARED)
      .map(([file, folders]) => `${rel(file)} <- ${[...folders].sort().join(', ')}`);
    expect(stray).toEqual([]);
    expect(readers.get(path.join(SHARED, 'raw-legacy.ts'))?.size).toBeGreaterThan(1);
  });

  it('keeps support folders at test/support and test/<suite>/support only', () => {
    const folders = [...new Set(files.map(rel).filter((file) => file.includes('support/')).map((file) => file.slice(0, file.lastIndexOf('support/') + 7)))];
    expect(folders.filter((folder) => !/^([a-z0-9-]+\/)?support$/.test(folder))).toEqual([]);
  });

  it('links an in-memory MCP pair in one helper (and one spec that wraps the server side itself)', () => {
    // early-initialize.test.ts hands the server side to the ReplayingTransport it tests before anything connects.
    expect(writing(/InMemoryTransport\.createLinkedPair/)).toEqual(['mcp/early-initialize.test.ts', 'support/in-process-client.ts']);
  });

  it('writes the 2026-07-28 envelope in the era driver only', () => {
    expect(writing(/'io\.modelcontextprotocol\/protocolVersion'/)).toEqual(['support/raw-modern.ts']);
  });

  it('writes JSON-RPC messages by hand only in the raw drivers and where the bytes are the point', () => {
    expect(writing(/jsonrpc: ?'2\.0'|"jsonrpc": ?"2\.0"|jsonrpc\\?":\\?"2\.0/)).toEqual([
      'e2e/http-auth.test.ts', // a script run as another user, with no access to the test's modules
      'e2e/jsonrpc-exact.test.ts', // the exact answers to malformed, batched and null-id messages
      'mcp/early-initialize.test.ts', // the answer written before the SDK has loaded, byte for byte
      'mcp/http-session-limits.test.ts', // the exact refusal body
      'mcp/transport/sse-replay.test.ts', // the messages the event buffer stores are its subject
      'security/arguments-hostile-wire.test.ts', // hostile bytes no builder would write
      'security/sdk2-before-initialize.test.ts', // the exact refusals before initialize
      'support/raw-legacy.ts',
      'support/raw-modern.ts',
    ]);
  });
});
