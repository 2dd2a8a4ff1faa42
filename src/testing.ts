import 'reflect-metadata';

/**
 * Test doubles for users' own unit tests: compose the production plugins,
 * then `replace(ShellExecutor, new ScriptedExecutor(...))` the edges.
 */
export { ScriptedExecutor, runResult, type ScriptedAnswer } from './testing/scripted-executor.js';
export { ScriptedConfinement } from './testing/scripted-confinement.js';
export { InMemoryTerminal, type InMemoryShellState, type InMemoryAnswer, type InMemoryResponder } from './testing/in-memory-terminal.js';
export { ScriptedApprovalAnswerer, type ScriptedApproval } from './testing/scripted-approval-answerer.js';
export { testingEnvironment, type TestingEnvironmentOptions } from './testing/testing.environment.js';
export { replace, decorate } from './container/create-host.js';
export { disposeAfterEach, type Disposable } from './testing/dispose-after-each.js';
