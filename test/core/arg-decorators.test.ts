// The argument classes' decorators are recorded until class-validator loads,
// then applied in their original order: the same metadata, so the same
// validation and messages, as decorating with class-validator directly.
import * as classValidator from 'class-validator';
import { applyArgDecorators, IsOptional, IsString, Matches, ValidateBy } from '../../src/core/arg-decorators.js';

const positive = (message: string) =>
  ValidateBy({ name: 'positive', validator: { validate: (value: unknown) => typeof value === 'number' && value > 0, defaultMessage: () => message } });

function lateClass() {
  class Late {
    @IsString({ message: 'name: not a string' })
    @Matches(/\S/, { message: 'name: blank' })
    name!: string;

    @IsOptional()
    @positive('count: not positive')
    count?: number;
  }
  return Late;
}

class Direct {
  @classValidator.IsString({ message: 'name: not a string' })
  @classValidator.Matches(/\S/, { message: 'name: blank' })
  name!: string;

  @classValidator.IsOptional()
  @classValidator.ValidateBy({
    name: 'positive',
    validator: { validate: (value: unknown) => typeof value === 'number' && value > 0, defaultMessage: () => 'count: not positive' },
  })
  count?: number;
}

function messages(cls: new () => object, values: object): string[] {
  const instance = Object.assign(new cls(), values);
  return classValidator.validateSync(instance).flatMap((error) => Object.values(error.constraints ?? {}));
}

const CASES = [{ name: 'a' }, { name: ' ' }, { name: 3 }, {}, { name: 'a', count: -1 }, { name: ' ', count: 'x' }];

test('recorded before class-validator is handed over, applied after, in order', () => {
  const Early = lateClass();
  const constraints = (cls: new () => object) => classValidator.getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  expect(constraints(Early)).toEqual([]);
  applyArgDecorators(classValidator);
  expect(constraints(Early)).toHaveLength(constraints(Direct).length);
  for (const values of CASES) expect(messages(Early, values)).toEqual(messages(Direct, values));
  // A class defined afterwards is decorated at once.
  const After = lateClass();
  for (const values of CASES) expect(messages(After, values)).toEqual(messages(Direct, values));
});
