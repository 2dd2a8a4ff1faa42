import type { ExecRequest, ExecSpec } from '../../src/providers/exec/shell/shell-executor.js';

/** A spec nobody checked (what a JavaScript caller or a copy hands an executor): typed as one only to test that the executor checks it. */
export function handMade(request: ExecRequest & { readonly workdir?: string; readonly timeoutMs?: number }): ExecSpec {
  return request as unknown as ExecSpec;
}
