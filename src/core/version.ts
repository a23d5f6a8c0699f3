declare const __HARNESS_VERSION__: string | undefined;

/** This build's version, reported to servers as the client version (set by the bundler). */
export const HARNESS_VERSION: string = typeof __HARNESS_VERSION__ === 'string' ? __HARNESS_VERSION__ : '0.0.0-dev';
