import { version } from '../../package.json';

/** This build's version, reported to servers as the client version. */
export const HARNESS_VERSION: string = version;
