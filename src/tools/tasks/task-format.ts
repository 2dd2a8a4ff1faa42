import type { TaskSnapshot } from '../../providers/tasks/task-runtime.js';

/** Longest label shown on one line of `task_list` or a completion notice. */
const MAX_LABEL_CHARS = 200;

/** `status: completed, exit code: 0` — the inside of every status bracket. */
export function statusText(snapshot: Pick<TaskSnapshot, 'status' | 'detail'>): string {
  return snapshot.detail ? `status: ${snapshot.status}, ${snapshot.detail}` : `status: ${snapshot.status}`;
}

/** The last line of a `task_output` result. */
export function statusLine(snapshot: Pick<TaskSnapshot, 'status' | 'detail'>): string {
  return `[${statusText(snapshot)}]`;
}

/** A label fit for one line: whitespace runs collapsed, long labels clipped. */
function displayLabel(label: string): string {
  const flat = label.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_LABEL_CHARS) return flat;
  return `${flat.slice(0, MAX_LABEL_CHARS - 1)}…`;
}

/** One `task_list` line: `<id> [<kind>] <status> — <label>`. */
export function listLine(snapshot: TaskSnapshot): string {
  return `${snapshot.id} [${snapshot.kind}] ${snapshot.status} — ${displayLabel(snapshot.label)}`;
}

/** The notice a session gets when one of its tasks settles unreported. */
export function completionNotice(snapshot: TaskSnapshot): string {
  return (
    `background task ${snapshot.id} (${snapshot.kind}: ${displayLabel(snapshot.label)}) ` +
    `finished [${statusText(snapshot)}]. Read its output with task_output.`
  );
}

/** Says that a read lost bytes to the memory bound and where the complete streams are. */
export function lossNotice(spillPaths: readonly string[]): string {
  return `[some output was dropped from memory; full output: ${spillPaths.length > 0 ? spillPaths.join(', ') : '(unavailable)'}]`;
}

/** Unknown and foreign ids share this text, so probing reveals nothing. */
export function unknownTaskMessage(id: string): string {
  return `no background task "${id}" in this session; task_list shows your tasks`;
}

/** The key a task's completion notice is queued under, so a final read can withdraw it. */
export function noticeKey(id: string): string {
  return `task:${id}`;
}
