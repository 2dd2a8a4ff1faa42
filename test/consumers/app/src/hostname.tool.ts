// A custom tool that runs a command without naming the session in its
// request: the host gives the request the calling session, so in the
// container composition it runs in the caller's own container.
import { IsOptional, IsString } from 'class-validator';
import { inject } from 'inversify';
import { PluginModule, ShellExecutor, Tool, bindTool, textResult, type ToolInstance } from 'dsh-tools';

export class HostnameArgs {
  @IsOptional()
  @IsString()
  note?: string;
}

@Tool({ name: 'hostname', description: 'Print the name of the machine commands run on.', args: HostnameArgs })
export class HostnameTool implements ToolInstance<HostnameArgs> {
  constructor(@inject(ShellExecutor) private readonly executor: ShellExecutor) {}

  async run() {
    const spec = this.executor.checkRequest({ command: 'cat /etc/hostname' });
    return textResult((await this.executor.run(spec)).stdout.trim());
  }
}

export const hostnameModule = () => new PluginModule('hostname', ({ bind }) => bindTool(bind, HostnameTool));
