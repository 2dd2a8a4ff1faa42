// The sandbox is a policy (policy/) with one implementation (backends/bwrap/):
// no other provider speaks of it in code — the kernel applies a
// `CommandConfinement` as given, other backends know none. Comments may
// explain; the exceptions below are model-visible texts or record fields.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SRC, sourceFiles } from './source-tree.js';

const PROVIDERS = path.join(SRC, 'providers');
const HOME = ['policy', 'backends/bwrap'].map((room) => path.join(PROVIDERS, room) + path.sep);

/** Files allowed to say "sandbox" in code, each with why. */
const EXCEPTIONS: Record<string, string> = {
  'exec/engine/container-shell-executor.ts': 'the model-visible refusal of an escalation in container mode (docs/contract.md)',
  'exec/engine/engine-session.module.ts': "the model-visible prompt section's name `sandbox:protected-paths`, the same in every confining composition",
  'exec/shell/shell-executor.ts': 'the model-visible resource-limit notice (docs/contract.md)',
  'observability/tool-call-observer.ts': "call events carry the mode a call ran under (`sandboxMode`) and where it ran (`mode: 'sandbox'`)",
  'observability/call-events.ts': 'reads the mode a call ran under from its result and the planner',
  'observability/audit-sink.ts': 'the audit record field `sandboxMode` (docs/operations.md)',
  'observability/tracing-observer.ts': 'the span attribute `dsh.sandbox_mode` (docs/operations.md)',
};

/** The lines of `text` that are code: comment lines (`//`, `/*`, ` *`) aside. */
function codeLines(text: string): Array<{ line: string; index: number }> {
  return text
    .split('\n')
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => !/^\s*(\/\/|\/\*|\*)/.test(line));
}

test('no provider outside policy/ and backends/bwrap/ speaks of the sandbox in code, but the listed ones', () => {
  const found = new Set<string>();
  const lines: string[] = [];
  for (const file of sourceFiles(PROVIDERS)) {
    if (HOME.some((home) => file.startsWith(home))) continue;
    const name = path.relative(PROVIDERS, file).split(path.sep).join('/');
    const hits = codeLines(readFileSync(file, 'utf8')).filter(({ line }) => /sandbox/i.test(line));
    if (hits.length === 0) continue;
    found.add(name);
    if (EXCEPTIONS[name] === undefined) lines.push(...hits.map(({ line, index }) => `${name}:${index + 1}: ${line.trim()}`));
  }
  expect(lines).toEqual([]);
  // An exception that no longer needs the word goes from the list.
  expect(Object.keys(EXCEPTIONS).filter((name) => !found.has(name))).toEqual([]);
});
