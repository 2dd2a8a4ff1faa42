import { inject, injectable } from 'inversify';
import { IsNumber, IsOptional, IsString, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { ServiceIdentifier } from 'inversify';
import { Tool } from '../../src/core/tool.decorator.js';
import { bindPromptSection, bindTool } from '../../src/core/contributions.js';
import { PluginModule } from '../../src/core/plugin-module.js';
import { textResult, type CallContext, type ToolInstance } from '../../src/core/tool-contract.js';

/** A tiny seam for host tests: where the echo tool sends what it saw. */
export interface Recorder {
  readonly seen: unknown[];
  disposed: number;
}
export const Recorder: ServiceIdentifier<Recorder> = Symbol.for('test.Recorder');

export class EchoArgs {
  @JSONSchema({ description: 'Text to echo back.' })
  @IsString({ message: 'invalid text: expected a non-empty string' })
  @MinLength(1, { message: 'invalid text: expected a non-empty string' })
  text!: string;

  @JSONSchema({ description: 'How many times.' })
  @IsOptional()
  @IsNumber({}, { message: 'invalid times: expected a number' })
  times?: number;
}

@Tool({ name: 'echo', description: 'Echoes text.', args: EchoArgs, requires: [Recorder] })
export class EchoTool implements ToolInstance<EchoArgs> {
  constructor(@inject(Recorder) private readonly recorder: Recorder) {}

  async run(args: EchoArgs, ctx: CallContext) {
    this.recorder.seen.push({ ...args });
    return textResult(args.text.repeat(args.times ?? 1), { session: ctx.session?.id });
  }

  dispose(): void {
    this.recorder.disposed += 1;
  }
}

@injectable()
export class ThrowingArgs {}

/** Fails in the ways a careless tool can: non-Error throws and rejections. */
@Tool({ name: 'boom', description: 'Fails.', args: ThrowingArgs, requires: [] })
export class BoomTool implements ToolInstance<ThrowingArgs> {
  static mode: 'string' | 'object' | 'reject' | 'error' = 'string';
  async run(): Promise<never> {
    switch (BoomTool.mode) {
      case 'string':
        throw 'plain string failure';
      case 'object':
        throw { code: 42 };
      case 'reject':
        return Promise.reject(new TypeError('rejected later'));
      default:
        throw new Error('Error: already prefixed');
    }
  }
}

export function echoToolModule(): PluginModule {
  return new PluginModule('tools:echo', ({ bind }) => {
    bindTool(bind, EchoTool);
    bindPromptSection(bind, { name: 'tool:echo', order: 150, text: 'Echo carefully.', tool: 'echo' });
  });
}

export function recorderModule(recorder: Recorder = { seen: [], disposed: 0 }): PluginModule {
  return new PluginModule('provider:recorder', ({ bind }) => {
    bind(Recorder).toConstantValue(recorder);
  });
}
