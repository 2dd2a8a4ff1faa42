import type { ServiceIdentifier } from 'inversify';
import type { CallInfo } from '../../../core/call-info.js';
import type { SessionContext } from '../../../core/tool-contract.js';

/** What a contributor sees when the overlay is collected for one execution. */
export interface EnvExecution {
  readonly session?: SessionContext;
  /** `foreground`, `background` or `persistent`. */
  readonly mode: 'foreground' | 'background' | 'persistent';
  readonly workdir: string;
  /**
   * The call the command runs for: its id, the backend's request id and
   * metadata (tenant…). Undefined outside every call. A persistent shell's
   * overlay is collected on every call and only changed keys are exported.
   */
  readonly call?: CallInfo;
}

export interface EnvKeyDeclaration {
  /** Must start with `DSH_`. */
  readonly key: string;
  readonly description: string;
}

/** A multi-bound source of managed `DSH_*` variables. */
export interface EnvContributor {
  /** Stable name, shown in errors and `list()`. */
  readonly name: string;
  readonly keys: readonly EnvKeyDeclaration[];
  /** Values for this execution; may return a subset of the declared keys. */
  valuesFor(execution: EnvExecution): Readonly<Record<string, string | undefined>>;
}

export const EnvContributor: ServiceIdentifier<EnvContributor> = Symbol.for('dsh.EnvContributor');

export interface EnvContributorInfo {
  readonly name: string;
  readonly keys: readonly EnvKeyDeclaration[];
}

/** Collects the managed overlay fresh for every call. */
export interface EnvRegistry {
  /** Contributor declarations, without running them. */
  list(): EnvContributorInfo[];
  /** Throws when a contributor returns an undeclared key. */
  collect(execution: EnvExecution): Record<string, string>;
}

export const EnvRegistry: ServiceIdentifier<EnvRegistry> = Symbol.for('dsh.EnvRegistry');
