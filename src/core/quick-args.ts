/*
 * Arguments that plainly meet their class's rules, accepted without loading
 * class-validator and class-transformer (about 10 % of a one-shot
 * `dsh-tools call`, docs/performance.md). The rules are the decorators the
 * argument classes take from arg-decorators.ts, recorded here as they are
 * applied; each is checked the way class-validator's own check is written.
 * Anything this file is not sure of (an invalid value, a value that is not a
 * string, number or boolean, a rule or option it does not know, a class not
 * made only of these decorators, class-validator loaded by anyone) answers
 * undefined, and the caller validates with class-validator, whose messages
 * are the only ones a model sees. `test/core/quick-args.test.ts` runs both
 * on the same arguments.
 */

/** One decorator on one property: its name and the arguments it was given. */
interface Rule {
  readonly name: string;
  readonly args: readonly unknown[];
}

/** The rules per property of each argument class's prototype that used the decorators. */
const rulesByPrototype = new WeakMap<object, Map<string, Rule[]>>();

/** Records a decorator applied to `property` of the class whose prototype is `target` (arg-decorators.ts). */
export function noteRule(target: object, property: string | symbol, name: string, args: readonly unknown[]): void {
  const rules = noteRuleClass(target);
  if (typeof property !== 'string') return void rules.set('', [{ name: 'unknown', args: [] }]);
  const list = rules.get(property) ?? [];
  list.push({ name, args });
  rules.set(property, list);
}

/** Marks the class whose prototype is `target` as one whose rules are recorded here (those of a class with none too). */
export function noteRuleClass(target: object): Map<string, Rule[]> {
  let rules = rulesByPrototype.get(target);
  if (rules === undefined) rulesByPrototype.set(target, (rules = new Map()));
  return rules;
}

/**
 * The rules of `argsClass` and of every class it extends, or undefined when
 * one of them has properties not recorded here (validation decorators taken
 * from class-validator itself, transformation decorators).
 */
function rulesOf(argsClass: new () => object): Map<string, Rule[]> | undefined {
  const all = new Map<string, Rule[]>();
  for (let proto = argsClass.prototype as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    const rules = rulesByPrototype.get(proto);
    if (rules === undefined) return undefined;
    for (const [property, list] of rules) all.set(property, [...(all.get(property) ?? []), ...list]);
  }
  return all;
}

/** class-validator's registry: present once any of its decorators was applied in this process (by anyone). */
function classValidatorLoaded(): boolean {
  return (globalThis as { classValidatorMetadataStorage?: unknown }).classValidatorMetadataStorage !== undefined;
}

/** Validation options with nothing but a message (no `each`, `groups`, `always`, `context`). */
function onlyMessage(options: unknown): boolean {
  return options === undefined || (typeof options === 'object' && options !== null && Object.keys(options).every((key) => key === 'message'));
}

/** Whether `value` surely passes `rule` (class-validator's check, for the values and options handled here). */
function passes(rule: Rule, value: unknown, object: object, property: string): boolean {
  const [first, second, third] = rule.args;
  switch (rule.name) {
    case 'IsString':
      return onlyMessage(first) && typeof value === 'string';
    case 'IsBoolean':
      return onlyMessage(first) && typeof value === 'boolean';
    case 'IsNotEmpty':
      return onlyMessage(first) && value !== '' && value !== null && value !== undefined;
    case 'IsPositive':
      return onlyMessage(first) && typeof value === 'number' && value > 0;
    case 'IsIn':
      return onlyMessage(second) && Array.isArray(first) && first.some((allowed) => allowed === value);
    case 'IsNumber': {
      const options = (first ?? {}) as { maxDecimalPlaces?: unknown };
      return onlyMessage(second) && options.maxDecimalPlaces === undefined && typeof value === 'number' && Number.isFinite(value);
    }
    case 'Matches':
      // Only a RegExp without `g` or `y` (whose lastIndex would matter), and no modifiers.
      return (
        first instanceof RegExp &&
        !first.global &&
        !first.sticky &&
        onlyMessage(second) &&
        third === undefined &&
        typeof value === 'string' &&
        value.match(first) !== null
      );
    case 'ValidateBy': {
      const options = first as { constraints?: unknown[]; validator?: unknown } | undefined;
      const validator = options?.validator as { validate?: unknown } | undefined;
      if (!onlyMessage(second) || typeof validator !== 'object' || validator === null || typeof validator.validate !== 'function') return false;
      const validate = validator.validate as (value: unknown, args: object) => unknown;
      const targetName = (object.constructor as { name?: string }).name ?? '';
      return validate(value, { value, constraints: options?.constraints, targetName, object, property }) === true;
    }
    default:
      return false;
  }
}

/**
 * An instance of `argsClass` holding `plain`'s values (what class-transformer
 * makes of them), when the values surely pass every rule; else undefined.
 */
export function quickArgs<A extends object>(argsClass: new () => A, plain: Record<string, unknown>): A | undefined {
  if (classValidatorLoaded()) return undefined;
  const rules = rulesOf(argsClass);
  if (rules === undefined) return undefined;
  const instance = new argsClass() as Record<string, unknown>;
  for (const [key, value] of Object.entries(plain)) {
    // class-validator's whitelist drops a property without rules; class-transformer skips accessors and methods.
    if (!rules.has(key) || !['string', 'number', 'boolean'].includes(typeof value)) return undefined;
    if (Object.getOwnPropertyDescriptor(argsClass.prototype, key) !== undefined || instance[key] !== undefined) return undefined;
    instance[key] = value;
  }
  for (const [property, list] of rules) {
    const value = instance[property];
    if (list.some((rule) => rule.name === 'IsOptional')) {
      if (!list.every((rule) => rule.name !== 'IsOptional' || onlyMessage(rule.args[0]))) return undefined;
      if (value === null || value === undefined) continue;
    }
    for (const rule of list) {
      if (rule.name !== 'IsOptional' && !passes(rule, value, instance, property)) return undefined;
    }
  }
  return instance as A;
}
