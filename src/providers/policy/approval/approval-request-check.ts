import { describeValue } from '../../../core/describe-value.js';
import { isSandboxMode, SANDBOX_MODES } from '../../../core/sandbox-mode.js';
import type { ApprovalAsk } from './approval-service.js';

const KINDS: readonly string[] = ['escalation', 'command'];

function fail(reason: string): never {
  throw new Error(`invalid approval request: ${reason}`);
}

/**
 * A request must carry the fields a person decides on: nobody is asked to
 * approve a command they cannot be shown, or an escalation without its mode
 * and justification. Throws `invalid approval request: …`.
 */
export function checkApprovalAsk(request: unknown): asserts request is ApprovalAsk {
  const r = request as Record<string, unknown> | null;
  if (r === null || typeof r !== 'object') fail(`expected an object, got ${describeValue(request)}`);
  if (!KINDS.includes(r.kind as string)) fail(`kind must be escalation or command, got ${describeValue(r.kind)}`);
  for (const key of ['tool', 'command', 'callId'] as const) {
    if (typeof r[key] !== 'string') fail(`${key} must be a string, got ${describeValue(r[key])}`);
  }
  for (const key of ['workdir', 'justification', 'rule'] as const) {
    if (r[key] !== undefined && typeof r[key] !== 'string') fail(`${key} must be a string when given, got ${describeValue(r[key])}`);
  }
  for (const key of ['sandboxMode', 'requestedMode'] as const) {
    if (r[key] !== undefined && !isSandboxMode(r[key])) fail(`${key} must be one of ${SANDBOX_MODES.join(', ')}, got ${describeValue(r[key])}`);
  }
  if (r.kind === 'escalation') {
    if (r.requestedMode === undefined) fail('an escalation needs requestedMode');
    if (r.justification === undefined) fail('an escalation needs a justification');
  }
}
