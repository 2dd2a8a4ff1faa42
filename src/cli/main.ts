#!/usr/bin/env node
// The `dsh-tools` command. The build bundles the CLI into one CommonJS file
// with a V8 code cache (start-up, docs/performance.md); without that file
// (a plain `tsc` build) the same program runs from its modules.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBundledCli } from './bundled-cli.js';

if (!runBundledCli(path.dirname(fileURLToPath(import.meta.url)))) await import('./cli-program.js');
