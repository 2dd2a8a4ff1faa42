import type * as ClassValidator from 'class-validator';
import { noteRule, noteRuleClass } from './quick-args.js';

type Decorators = Pick<
  typeof ClassValidator,
  'IsBoolean' | 'IsIn' | 'IsNotEmpty' | 'IsNumber' | 'IsOptional' | 'IsPositive' | 'IsString' | 'Matches' | 'ValidateBy'
>;

/*
 * The class-validator decorators the package's argument classes use, applied
 * late: class-validator (with validator.js and libphonenumber, over 100 ms)
 * loads only with argument validation or schema generation
 * (arg-validation.ts, tool-schema.ts), and start-up reads the schemas cached
 * at build time (args-schemas.ts). Until then each use is recorded; loading
 * class-validator applies the records in their original order, so the
 * metadata, and so every message, is what the decorators make directly.
 */
let loaded: Decorators | undefined;
const recorded: Array<(decorators: Decorators) => void> = [];

/** Applies the recorded decorators, and every later one at once. Called where class-validator is imported. */
export function applyArgDecorators(decorators: Decorators): void {
  loaded ??= decorators;
  for (const apply of recorded.splice(0)) apply(loaded);
}

function late<K extends keyof Decorators>(name: K): Decorators[K] {
  const factory = (...args: unknown[]): PropertyDecorator => (target, property) => {
    noteRule(target, property, name, args);
    const apply = (decorators: Decorators) => (decorators[name] as (...a: unknown[]) => PropertyDecorator)(...args)(target, property);
    if (loaded !== undefined) apply(loaded);
    else recorded.push(apply);
  };
  return factory as Decorators[K];
}

export const IsBoolean = late('IsBoolean');
export const IsIn = late('IsIn');
export const IsNotEmpty = late('IsNotEmpty');
export const IsNumber = late('IsNumber');
export const IsOptional = late('IsOptional');
export const IsPositive = late('IsPositive');
export const IsString = late('IsString');
export const Matches = late('Matches');
export const ValidateBy = late('ValidateBy');
/** For an argument class with no property at all: its (empty) rules are these decorators' (quick-args.ts). */
export function NoArguments(): ClassDecorator {
  return (target) => {
    noteRuleClass(target.prototype as object);
  };
}
export type { ValidationArguments } from 'class-validator';
// Only the decorator: the package index loads class-validator.
export { JSONSchema } from 'class-validator-jsonschema/build/decorators.js';
