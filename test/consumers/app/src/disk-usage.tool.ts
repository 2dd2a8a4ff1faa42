// A custom tool in the consumer's own package: an argument class, the @Tool
// class, and a PluginModule that binds it with its prompt section.
import { IsOptional, IsString, MinLength } from 'class-validator';
import { inject } from 'inversify';
import {
  EnvRegistry,
  PluginModule,
  ShellExecutor,
  Tool,
  ToolError,
  bindPromptSection,
  bindTool,
  textResult,
  type CallContext,
  type ToolInstance,
  type ToolResult,
} from 'dsh-tools';

export class DiskUsageArgs {
  @IsString({ message: 'invalid path: expected a non-empty string' })
  @MinLength(1, { message: 'invalid path: expected a non-empty string' })
  path!: string;

  @IsOptional()
  @IsString({ message: 'invalid note: expected a string' })
  note?: string;
}

export interface DiskUsageValue {
  readonly path: string;
  readonly kilobytes: number;
}

@Tool({
  name: 'disk_usage',
  description: 'Report how many kilobytes a file or directory takes.',
  args: DiskUsageArgs,
})
export class DiskUsageTool implements ToolInstance<DiskUsageArgs> {
  constructor(
    @inject(ShellExecutor) private readonly executor: ShellExecutor,
    @inject(EnvRegistry) private readonly env: EnvRegistry,
  ) {}

  async run(args: DiskUsageArgs, ctx: CallContext): Promise<ToolResult<DiskUsageValue>> {
    const workdir = ctx.session?.cwd ?? process.cwd();
    const spec = this.executor.checkRequest({
      command: `du -sk ${JSON.stringify(args.path)}`,
      workdir,
      dshEnv: this.env.collect({ session: ctx.session, mode: 'foreground', workdir }),
    });
    const result = await this.executor.run(spec, { signal: ctx.signal });
    const kilobytes = Number.parseInt(result.stdout, 10);
    if (result.exitCode !== 0 || Number.isNaN(kilobytes)) {
      throw new ToolError(`du failed for ${args.path}: ${result.stderr.trim() || `exit code ${result.exitCode}`}`);
    }
    return textResult(`${args.path}: ${kilobytes} KiB`, { path: args.path, kilobytes });
  }
}

/** The consumer's plugin: the tool and its prompt guidance. */
export function diskUsageModule(): PluginModule {
  return new PluginModule('disk-usage', ({ bind }) => {
    bindTool(bind, DiskUsageTool);
    bindPromptSection(bind, {
      name: 'tool:disk_usage',
      order: 150,
      text: 'Use disk_usage before deleting build output to report what was freed.',
      tool: 'disk_usage',
    });
  });
}
