import { PACKAGE_VERSION } from '../version.js';

/** What the server reports as `serverInfo` in the initialize result. */
export const SERVER_INFO = { name: 'dsh-tools', version: PACKAGE_VERSION } as const;
