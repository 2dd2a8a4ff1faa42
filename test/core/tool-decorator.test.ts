// `@Tool` records metadata only; Inversify's `@injectable()` is the user's
// choice, in either order, and never a "applied multiple times" failure.
import { inject, injectable } from 'inversify';
import { IsString } from 'class-validator';
import { bindTool, createHost, PluginModule, Tool, textResult, type ToolInstance } from '../../src/index.js';
import { Recorder } from '../support/echo-tool.js';

class NoteArgs {
  @IsString({ message: 'invalid note: expected a string' })
  note!: string;
}

@Tool({ name: 'note_plain', description: 'Records a note.', args: NoteArgs, requires: [Recorder] })
class PlainTool implements ToolInstance<NoteArgs> {
  constructor(@inject(Recorder) private readonly recorder: Recorder) {}
  async run(args: NoteArgs) {
    this.recorder.seen.push(`plain:${args.note}`);
    return textResult('ok');
  }
}

@injectable()
@Tool({ name: 'note_injectable_outer', description: 'Records a note.', args: NoteArgs, requires: [Recorder] })
class InjectableOuterTool implements ToolInstance<NoteArgs> {
  constructor(@inject(Recorder) private readonly recorder: Recorder) {}
  async run(args: NoteArgs) {
    this.recorder.seen.push(`outer:${args.note}`);
    return textResult('ok');
  }
}

@Tool({ name: 'note_injectable_inner', description: 'Records a note.', args: NoteArgs, requires: [Recorder] })
@injectable()
class InjectableInnerTool implements ToolInstance<NoteArgs> {
  constructor(@inject(Recorder) private readonly recorder: Recorder) {}
  async run(args: NoteArgs) {
    this.recorder.seen.push(`inner:${args.note}`);
    return textResult('ok');
  }
}

describe('@Tool with or without @injectable()', () => {
  it('activates and runs tools decorated with @Tool alone or together with @injectable() in either order', async () => {
    const recorder: Recorder = { seen: [], disposed: 0 };
    const host = await createHost(
      new PluginModule('notes', ({ bind }) => {
        bind(Recorder).toConstantValue(recorder);
        bindTool(bind, PlainTool);
        bindTool(bind, InjectableOuterTool);
        bindTool(bind, InjectableInnerTool);
      }),
    );
    try {
      expect(host.pending()).toEqual([]);
      for (const name of ['note_plain', 'note_injectable_outer', 'note_injectable_inner']) {
        expect((await host.call(name, { note: 'x' })).content[0]!.text).toBe('ok');
      }
      expect(recorder.seen).toEqual(['plain:x', 'outer:x', 'inner:x']);
    } finally {
      await host.dispose();
    }
  });
});
