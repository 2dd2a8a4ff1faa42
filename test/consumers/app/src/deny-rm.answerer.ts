// An approval answerer written for command rules: "deny rm, allow the rest".
// It declares the kinds it answers; it is never asked about a sandbox escalation.
import type { ApprovalAnswerer, ApprovalRequest } from 'dsh-tools';

export function denyRm(asked: ApprovalRequest[] = []): ApprovalAnswerer {
  return {
    name: 'deny-rm',
    kinds: ['command'],
    answer: async (request) => {
      asked.push(request);
      return /^rm\b/.test(request.command) ? 'rejected' : 'allowed-once';
    },
  };
}
