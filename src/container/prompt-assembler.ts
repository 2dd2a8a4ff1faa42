import type { PromptSection } from '../core/prompt-section.js';
import type { JsonSchema, ToolAnnotations } from '../core/tool-contract.js';
import { toolNameOrder } from './tool-name-order.js';

export interface ToolDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly outputSchema?: JsonSchema;
}

export interface AssembledPrompt {
  readonly sections: PromptSection[];
  readonly tools: ToolDescriptor[];
}

/**
 * Sorts sections by order then name, drops empty ones and those of tools
 * that are not active.
 */
export function assemblePrompt(
  sections: readonly PromptSection[],
  tools: readonly ToolDescriptor[],
): AssembledPrompt {
  const active = new Set(tools.map((tool) => tool.name));
  const visible = sections
    .filter((section) => section.text.trim() !== '')
    .filter((section) => section.tool === undefined || active.has(section.tool))
    .sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const order = toolNameOrder();
  return { sections: visible, tools: [...tools].sort((a, b) => order(a.name, b.name)) };
}

/** The sections as one system-prompt text, separated by blank lines. */
export function renderPrompt(prompt: AssembledPrompt): string {
  return prompt.sections.map((section) => section.text.trim()).join('\n\n');
}
