// Two bad tools in one plugin: one whose constructor throws, one that injects
// a token nobody binds. The host stays up and says why each is pending.
import { IsOptional, IsString } from 'class-validator';
import { inject, type ServiceIdentifier } from 'inversify';
import { PluginModule, Tool, bindTool, textResult, type ToolInstance } from 'dsh-tools';

export const Ledger: ServiceIdentifier<{ total(): number }> = Symbol.for('consumer.Ledger');

class NoArgs {
  @IsOptional()
  @IsString()
  note?: string;
}

@Tool({ name: 'explode', description: 'Never starts.', args: NoArgs })
export class ExplodingTool implements ToolInstance<NoArgs> {
  constructor() {
    throw new Error('no licence key configured');
  }
  async run() {
    return textResult('unreachable');
  }
}

@Tool({ name: 'ledger_total', description: 'Report the ledger total.', args: NoArgs })
export class LedgerTotalTool implements ToolInstance<NoArgs> {
  constructor(@inject(Ledger) private readonly ledger: { total(): number }) {}
  async run() {
    return textResult(String(this.ledger.total()));
  }
}

export const brokenModule = () =>
  new PluginModule('broken', ({ bind }) => {
    bindTool(bind, ExplodingTool);
    bindTool(bind, LedgerTotalTool);
  });
