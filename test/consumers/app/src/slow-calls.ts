// An observer of every call (the built-in shells' and the consumer's own
// tools'), with no wrapper around any provider.
import { PluginModule, bindToolCallObserver, type ToolCallObserver } from 'dsh-tools';

export function slowCallsModule(thresholdMs: number, warn: (line: string) => void): PluginModule {
  const slowCalls: ToolCallObserver = {
    name: 'slow-calls',
    onCallEnd: (end) => {
      if (end.durationMs >= thresholdMs) warn(`${end.tool} took ${end.durationMs} ms (${end.outcome}, session ${end.sessionId})`);
    },
  };
  return new PluginModule('observe:slow-calls', ({ bind }) => bindToolCallObserver(bind, slowCalls));
}
