// What each client offers the common script: the suite asserts the full case
// where the client can express it, and what the client does instead where not.
import type { NodeLine } from './fixture.js';

export type Transport = 'stdio' | 'http';

export interface ClientSpec {
  /** The name in test titles, e.g. "TypeScript SDK 1.32". */
  title: string;
  /** drivers/<driver>.mjs */
  driver: string;
  /** The npm package whose presence makes the client runnable. */
  packageName: string;
  node: NodeLine;
  transports: Transport[];
  /** The client can pin the 2026-07-28 era (SDK 2 `pin`, Inspector `--protocol-era modern`). */
  modernEra: boolean;
  /**
   * tools/list as the client hands it on: the MCP tool with title, annotations and
   * outputSchema (full), the same without the title (untitled), or only names.
   */
  listShape: 'full' | 'untitled' | 'names';
  /**
   * resets-timeout: a per-call progress callback and a request timeout progress resets;
   * callback: progress is reported but cannot keep a call alive past the client's timeout;
   * none: no progress reaches the caller.
   */
  progress: 'resets-timeout' | 'callback' | 'none';
  /** A structured-only mode (OpenAI Agents' useStructuredContent) whose JSON becomes the model's text. */
  structuredMode?: boolean;
  /**
   * A per-call abort signal. notifies: it sends notifications/cancelled; stream-only:
   * it only drops the request (over HTTP the closed stream still cancels the call).
   */
  cancel: 'notifies' | 'stream-only' | false;
  /** Answers form-mode elicitation (the approval prompt). */
  elicitation: boolean;
  /** In the 2026-07-28 era, answers an `input_required` result's form elicitation and retries the call (its MRTR driver). */
  inputRequired?: boolean;
  /** Transports over which the client, probing `server/discover` first, talks the 2026-07-28 era even when not pinned. */
  discoversModernOver?: readonly ('stdio' | 'http')[];
  /** One long-lived connection per run (false: one process per request, e.g. the Inspector CLI: no background read, cancel or expiry). */
  session: boolean;
  /** A schema linter whose report is checked (Inspector --strict). */
  strictLint?: boolean;
}

/** The cases of the common script, in order (drivers/script.mjs). */
export function casesFor(spec: ClientSpec, transport: Transport): string[] {
  const cases = ['connect', 'list', 'echo', 'exit'];
  if (spec.structuredMode) cases.push('exitStructured');
  cases.push('long');
  if (spec.session) cases.push('heartbeat', 'background');
  if (spec.cancel) cases.push('cancel');
  cases.push('approval');
  if (spec.strictLint) cases.push('strict');
  if (transport === 'http') cases.unshift('badToken');
  return cases;
}
