import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContainerModule } from 'inversify';
import type { DshHost } from '../../src/index.js';
import type { AuditRecord } from '../../src/providers/observability/audit-sink.js';
import { HostMetrics } from '../../src/providers/observability/host-metrics.js';
import {
  bindToolCallObserver,
  type ToolCallEnd,
  type ToolCallObserver,
  type ToolCallStart,
} from '../../src/providers/observability/tool-call-observer.js';

/** Records every event it sees. */
export class RecordingObserver implements ToolCallObserver {
  readonly name = 'recording';
  readonly starts: ToolCallStart[] = [];
  readonly ends: ToolCallEnd[] = [];
  onCallStart(event: ToolCallStart): void {
    this.starts.push(event);
  }
  onCallEnd(event: ToolCallEnd): void {
    this.ends.push(event);
  }
}

/** A plugin binding `observer`. */
export function observerModule(observer: ToolCallObserver): ContainerModule {
  return new ContainerModule(({ bind }) => bindToolCallObserver(bind, observer));
}

export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function auditLines(file: string): AuditRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);
}

/** The host's metrics in the text format. */
export async function metricsText(host: DshHost): Promise<string> {
  return (await host.get(HostMetrics).exposition()).text;
}

/** The value of one sample line, e.g. `dsh_tool_calls_total{tool="bash",outcome="ok"}`; 0 when absent. */
export function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
