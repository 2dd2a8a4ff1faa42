import type { SandboxMode } from './sandbox-mode.js';

/**
 * The prompt section that tells the model where its commands run, so it does
 * not try what the composition refuses (docs/contract.md, "Where commands
 * run"). Each confining provider contributes its own lines; the local
 * unconfined composition has none, so its prompt is unchanged.
 */
export const WHERE_PROMPT_SECTION = { name: 'environment:where', order: 104 } as const;

export const WHERE_TEXTS = Object.freeze({
  sandboxReadOnly:
    'Your commands run in a bubblewrap sandbox, read-only by default: they can read files but cannot write any, in the workspace, /tmp or elsewhere.',
  sandboxWorkspaceWrite:
    'Your commands run in a bubblewrap sandbox that by default lets them write only the workspace and /tmp (private to this session); everything else is read-only.',
  container:
    "Your commands run in a container of this session, not on the user's machine: files outside the workspace belong to the container, and what you install or change there is lost when the session ends.",
  pod:
    "Your commands run in a Kubernetes pod of this session, not on the user's machine: files outside the workspace belong to the pod, and what you install or change there is lost when the session ends.",
  workspaceReadOnly: 'The workspace is mounted read-only: commands cannot change its files.',
  noNetwork: 'Commands have no network access: downloads, package installs and remote git operations fail.',
});

/** The bwrap sandbox's lines for its default mode (none for `danger-full-access`: nothing is confined). */
export function sandboxWherePrompt(mode: SandboxMode, network: boolean): string {
  if (mode === 'danger-full-access') return '';
  const lines: string[] = [mode === 'read-only' ? WHERE_TEXTS.sandboxReadOnly : WHERE_TEXTS.sandboxWorkspaceWrite];
  if (!network) lines.push(WHERE_TEXTS.noNetwork);
  return lines.join(' ');
}

/** The session container's (or pod's) lines. `network` false: the engine gives the session no network at all. */
export function containerWherePrompt(facts: { readonly unit: 'container' | 'pod'; readonly workspaceReadOnly: boolean; readonly network: boolean }): string {
  const lines: string[] = [facts.unit === 'pod' ? WHERE_TEXTS.pod : WHERE_TEXTS.container];
  if (facts.workspaceReadOnly) lines.push(WHERE_TEXTS.workspaceReadOnly);
  if (!facts.network) lines.push(WHERE_TEXTS.noNetwork);
  return lines.join(' ');
}
