// What the backend knows about a call (its id, the request id, the tenant)
// reaching the consumer's own tool and an env contributor.
import { IsOptional, IsString } from 'class-validator';
import { EnvContributor, PluginModule, Tool, bindTool, currentToolCall, textResult, type CallContext, type ToolInstance } from 'dsh-tools';

export class CallInfoArgs {
  @IsOptional()
  @IsString()
  note?: string;
}

export interface CallInfoValue {
  readonly callId: string;
  readonly requestId?: string;
  readonly tenant?: string;
  readonly sameAsCurrent: boolean;
}

@Tool({ name: 'call_info', description: 'Say which call and tenant this is.', args: CallInfoArgs })
export class CallInfoTool implements ToolInstance<CallInfoArgs> {
  async run(_args: CallInfoArgs, ctx: CallContext) {
    const value: CallInfoValue = {
      callId: ctx.callId,
      requestId: ctx.requestId,
      tenant: ctx.metadata?.tenant,
      sameAsCurrent: currentToolCall() === ctx,
    };
    return textResult(`call ${ctx.callId} for ${ctx.metadata?.tenant ?? 'no tenant'}`, value);
  }
}

export const tenantEnv: EnvContributor = {
  name: 'tenant',
  keys: [{ key: 'DSH_TENANT', description: 'The tenant the call runs for.' }],
  valuesFor: (execution) => ({ DSH_TENANT: execution.call?.metadata.tenant }),
};

export function tenantModule(): PluginModule {
  return new PluginModule('tenant', ({ bind }) => {
    bindTool(bind, CallInfoTool);
    bind(EnvContributor).toConstantValue(tenantEnv);
  });
}
