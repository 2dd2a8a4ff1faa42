// The consumer's tools in the typed registry: `session.call('disk_usage', …)`
// then checks its arguments and types its value, as for the built-in tools.
import type { CallInfoValue } from './tenant.js';
import type { DiskUsageValue } from './disk-usage.tool.js';

declare module 'dsh-tools' {
  interface ToolValueTypes {
    disk_usage: DiskUsageValue;
    call_info: CallInfoValue;
  }
  interface ToolArgTypes {
    disk_usage: { readonly path: string; readonly note?: string };
    call_info: { readonly note?: string };
  }
}
