import type { ServiceIdentifier } from 'inversify';

/**
 * A named, ordered piece of the system prompt. Order bands: tool guidance
 * 100-199. A section with `tool` set is shown only while that tool is active.
 */
export interface PromptSection {
  readonly name: string;
  readonly order: number;
  readonly text: string;
  readonly tool?: string;
}

export const PromptSection: ServiceIdentifier<PromptSection> = Symbol.for('dsh.PromptSection');
