/**
 * The package version, as a constant: reading package.json at run time would
 * need the module's own location, which ESM and CommonJS builds spell
 * differently. A test keeps it equal to package.json.
 */
export const PACKAGE_VERSION = '0.1.0';
