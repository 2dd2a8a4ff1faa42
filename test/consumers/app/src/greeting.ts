// A provider seam of the consumer's own (Greeter), a singleton service over
// it (Salutation), and two tools: one injects the seam, one the service. The
// swaps test replaces, rebinds, decorates and unloads the seam under them.
import { IsOptional, IsString } from 'class-validator';
import { inject, injectable, type ServiceIdentifier } from 'inversify';
import { PluginModule, Tool, bindSeam, bindTool, decorate, textResult, type ToolInstance } from 'dsh-tools';

export interface Greeter {
  greet(): string;
  dispose?(): void;
}
export const Greeter: ServiceIdentifier<Greeter> = Symbol.for('consumer.Greeter');

/** Every greeter made, and which were disposed: a test tells which one serves. */
export class Greeters {
  readonly made: Array<{ name: string; disposed: boolean }> = [];
  make(name: string): Greeter {
    const record = { name, disposed: false };
    this.made.push(record);
    return { greet: () => name, dispose: () => void (record.disposed = true) };
  }
  live(): string[] {
    return this.made.filter((greeter) => !greeter.disposed).map((greeter) => greeter.name);
  }
}

/** The seam's provider, bound once (a second plugin binding it is refused). */
export function greeterModule(greeters: Greeters): PluginModule {
  return new PluginModule('greeter', ({ bind }) => {
    bindSeam(bind, Greeter)
      .toDynamicValue(() => greeters.make('base'))
      .inSingletonScope()
      .onDeactivation((greeter) => greeter.dispose?.());
  });
}

/** A wrapper of whatever greeter is bound (its wrapper has no dispose(): the host disposes the greeter). */
export const shouting = (name = 'shouting') => decorate<Greeter>(Greeter, (inner) => ({ greet: () => inner.greet().toUpperCase() }), name);

// A singleton between a tool and the seam: the host builds it again when the seam is swapped.
@injectable()
export class Salutation {
  constructor(@inject(Greeter) private readonly greeter: Greeter) {}
  line(): string {
    return `dear ${this.greeter.greet()}`;
  }
}

export class NoArgs {
  @IsOptional()
  @IsString()
  note?: string;
}

@Tool({ name: 'greet', description: 'Greet.', args: NoArgs })
export class GreetTool implements ToolInstance<NoArgs> {
  constructor(@inject(Greeter) private readonly greeter: Greeter) {}
  async run() {
    return textResult(this.greeter.greet());
  }
}

@Tool({ name: 'salute', description: 'Salute.', args: NoArgs })
export class SaluteTool implements ToolInstance<NoArgs> {
  constructor(@inject(Salutation) private readonly salutation: Salutation) {}
  async run() {
    return textResult(this.salutation.line());
  }
}

export const greetModule = () => new PluginModule('greet', ({ bind }) => bindTool(bind, GreetTool));

export const saluteModule = () =>
  new PluginModule('salute', ({ bind }) => {
    bind(Salutation).toSelf().inSingletonScope();
    bindTool(bind, SaluteTool);
  });
