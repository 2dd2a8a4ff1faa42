// `node --import <this file>` with DSH_TRACE_LOADS=<file>: appends the URL of
// every module the ESM loader loads (packages' CommonJS internals excepted) to
// that file, so a test can see what a command loaded.
import { register } from 'node:module';

register('./trace-loads-hooks.mjs', import.meta.url);
