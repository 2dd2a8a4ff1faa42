/**
 * The capability a server that offers spill files as resources declares
 * (beside `tools` and `logging`). Kept apart from `spill-resources.ts` so the
 * early initialize answer does not load the MCP SDK.
 */
export const SPILL_RESOURCE_CAPABILITIES = { resources: {} } as const;
