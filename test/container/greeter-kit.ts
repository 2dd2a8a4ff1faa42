// A tiny provider seam and the tools that use it, for the swap tests: every
// instance is recorded, so a test can tell which one serves calls and which
// were disposed.
import { inject } from 'inversify';
import type { ServiceIdentifier } from 'inversify';
import { PluginModule, Tool, bindSeam, bindTool, decorate, textResult, type ToolInstance } from '../../src/index.js';

export interface Greeter {
  readonly name: string;
  greet(): string;
}

export const Greeter: ServiceIdentifier<Greeter> = Symbol.for('test.Greeter');

export class NoArgs {}

/** Every greeter made, with how often it was disposed. */
export class Greeters {
  readonly made: Array<Greeter & { disposed: number; dispose(): void }> = [];
  make(name: string): Greeter & { disposed: number; dispose(): void } {
    const greeter = {
      name,
      disposed: 0,
      greet: () => name,
      dispose() {
        greeter.disposed += 1;
      },
    };
    this.made.push(greeter);
    return greeter;
  }
}

/** The base provider: built by the container, disposed by its binding's own handler (which calls `dispose()`). */
export function baseGreeter(greeters: Greeters): PluginModule {
  return new PluginModule('greeter:base', ({ bind }) => {
    bindSeam(bind, Greeter)
      .toDynamicValue(() => greeters.make('base'))
      .inSingletonScope()
      .onDeactivation((greeter) => {
        (greeter as unknown as { dispose(): void }).dispose();
      });
  });
}

// Neither tool lists Greeter in `requires`: the host reads it from the constructor.
@Tool({ name: 'greet', description: 'Greet.', args: NoArgs, requires: [] })
export class GreetTool implements ToolInstance<NoArgs> {
  constructor(@inject(Greeter) private readonly greeter: Greeter) {}
  async run() {
    return textResult(this.greeter.greet());
  }
}

@Tool({ name: 'greet_again', description: 'Greet again.', args: NoArgs, requires: [] })
export class GreetAgainTool implements ToolInstance<NoArgs> {
  constructor(@inject(Greeter) private readonly greeter: Greeter) {}
  async run() {
    return textResult(this.greeter.greet());
  }
}

export const greetTool = () => new PluginModule('tools:greet', ({ bind }) => bindTool(bind, GreetTool));
export const greetAgainTool = () => new PluginModule('tools:greet-again', ({ bind }) => bindTool(bind, GreetAgainTool));

/** A decorator whose wrapper has no `dispose()` (the host must still dispose what it wraps). */
export function undisposableWrapper(name = 'decorate'): PluginModule {
  return decorate(Greeter, (inner) => ({ name: `deco(${inner.name})`, greet: () => `deco(${inner.greet()})` }), name);
}
