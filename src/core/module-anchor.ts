/**
 * Where this package's code runs from, for resolving the packages it may
 * load. The ESM build's; scripts/build.mjs gives the CommonJS build its own
 * (`__filename`), which has no `import.meta`.
 */
export const MODULE_ANCHOR: string = import.meta.url;
