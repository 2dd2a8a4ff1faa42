// `releaseProcesses`: an idle session gives up what holds a process (its
// shell) and keeps the rest of its scope; a later use makes the shell afresh.
import { DisposableScope, ScopeKey } from '../../src/core/session-scope.js';

const SHELL = new ScopeKey<{ n: number }>('the shell', { outlivesCall: true, holdsProcess: true });
const PTY = new ScopeKey<true>('the PTYs', { holdsProcess: true });
const TASKS = new ScopeKey<true>('the tasks', { outlivesCall: true });

const names = (keys: ReadonlyArray<ScopeKey<unknown>>): string[] => keys.map((key) => key.name);

test('disposes only the process holders, newest first, and forgets them so they are made again', async () => {
  const disposed: string[] = [];
  const scope = new DisposableScope(() => undefined);
  scope.get(TASKS, () => true, () => void disposed.push('tasks'));
  scope.get(SHELL, () => ({ n: 1 }), () => void disposed.push('shell'));
  scope.add('hook', () => void disposed.push('hook'));
  scope.get(PTY, () => true, () => void disposed.push('pty'));

  expect(names(await scope.releaseProcesses())).toEqual(['the shell', 'the PTYs']);
  expect(disposed).toEqual(['pty', 'shell']);
  expect(scope.peek(SHELL)).toBeUndefined();
  expect(scope.peek(TASKS)).toBe(true);
  expect(scope.holdsLastingState).toBe(true);

  expect(scope.get(SHELL, () => ({ n: 2 }), () => void disposed.push('shell 2'))).toEqual({ n: 2 });
  expect(names(await scope.releaseProcesses())).toEqual(['the shell']);
  await scope.dispose();
  expect(disposed).toEqual(['pty', 'shell', 'shell 2', 'hook', 'tasks']);
});

test('a scope without process holders, or a disposed one, releases nothing', async () => {
  const scope = new DisposableScope(() => undefined);
  scope.get(TASKS, () => true);
  expect(await scope.releaseProcesses()).toEqual([]);
  scope.get(SHELL, () => ({ n: 1 }));
  await scope.dispose();
  expect(await scope.releaseProcesses()).toEqual([]);
});
