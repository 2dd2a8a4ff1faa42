import type * as ClassValidator from 'class-validator';
import * as isBoolean from 'class-validator/cjs/decorator/typechecker/IsBoolean.js';
import * as isIn from 'class-validator/cjs/decorator/common/IsIn.js';
import * as isNotEmpty from 'class-validator/cjs/decorator/common/IsNotEmpty.js';
import * as isNumber from 'class-validator/cjs/decorator/typechecker/IsNumber.js';
import * as isOptional from 'class-validator/cjs/decorator/common/IsOptional.js';
import * as isPositive from 'class-validator/cjs/decorator/number/IsPositive.js';
import * as isString from 'class-validator/cjs/decorator/typechecker/IsString.js';
import * as matches from 'class-validator/cjs/decorator/string/Matches.js';
import * as validateBy from 'class-validator/cjs/decorator/common/ValidateBy.js';

/*
 * The class-validator decorators the argument classes use, each from its own
 * module. class-validator's index loads every validator it has (validator.js,
 * libphonenumber: over 100 ms), which start-up must not pay; validation loads
 * the index on the first call (see arg-validation.ts). Both register in and
 * read class-validator's one global metadata storage.
 */
export const IsBoolean: typeof ClassValidator.IsBoolean = isBoolean.IsBoolean;
export const IsIn: typeof ClassValidator.IsIn = isIn.IsIn;
export const IsNotEmpty: typeof ClassValidator.IsNotEmpty = isNotEmpty.IsNotEmpty;
export const IsNumber: typeof ClassValidator.IsNumber = isNumber.IsNumber;
export const IsOptional: typeof ClassValidator.IsOptional = isOptional.IsOptional;
export const IsPositive: typeof ClassValidator.IsPositive = isPositive.IsPositive;
export const IsString: typeof ClassValidator.IsString = isString.IsString;
export const Matches: typeof ClassValidator.Matches = matches.Matches;
export const ValidateBy: typeof ClassValidator.ValidateBy = validateBy.ValidateBy;
export type { ValidationArguments } from 'class-validator';
// Only the decorator: the package index loads class-validator's.
export { JSONSchema } from 'class-validator-jsonschema/build/decorators.js';
