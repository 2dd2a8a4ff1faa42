// Waits on states that send no event (a pod's end, a record's removal, a
// quota's status): asks the API or the file system again until it holds.

/** Polls (every 100 ms, at most `ms`) until `check` holds; resolves with the time it took, throws naming `what` when the time runs out. */
export async function pollUntilAsync(check: () => Promise<boolean>, what: string, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms}ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}
