/** The core's name for the one `Result` type (defined in src/shared, which the webview may import too). */
export { fail, ok, type Result } from '../../shared/result';
