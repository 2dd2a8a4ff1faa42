import { collapsedNotice } from '../../output-filter/line-collapse.js';
import type { OutputCapture } from './output-capture.js';
import { joinStreams, leftoverNotice, type OutputDelta } from './shell-executor.js';

/**
 * One consuming read of a background command's two captures, the same for
 * every backend: new stdout, then new stderr under `[stderr]`, then the
 * notices (progress updates collapsed in this read; on the final read, the
 * leftover processes killed when the command ended), and the spill files of
 * the streams that lost bytes.
 */
export function readBackground(stdout: OutputCapture, stderr: OutputCapture, leftoversKilled = 0): OutputDelta {
  const out = stdout.readNew();
  const err = stderr.readNew();
  let text = joinStreams(out.text, err.text);
  const collapsed = out.collapsed + err.collapsed;
  if (collapsed > 0) text = appendLine(text, collapsedNotice(collapsed));
  if (leftoversKilled > 0) text = appendLine(text, leftoverNotice(leftoversKilled));
  const spillPaths: string[] = [];
  if (out.lost && stdout.spillPath !== undefined) spillPaths.push(stdout.spillPath);
  if (err.lost && stderr.spillPath !== undefined) spillPaths.push(stderr.spillPath);
  return { text, lost: out.lost || err.lost, spillPaths };
}

function appendLine(text: string, line: string): string {
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`;
}
