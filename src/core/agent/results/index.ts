/** Tool results too large for the model's context: where they are kept, and how the model reads them. */
export { MemoryToolResultStore, DEFAULT_MEMORY_STORE_CHARS, countLines, isResultHandle } from './ToolResultStore';
export type { IToolResultStore, StoredResultInfo } from './ToolResultStore';
export { DiskToolResultStore } from './DiskToolResultStore';
export { READ_RESULT_NAME, READ_RESULT_SPEC, DEFAULT_READ_CHARS, MAX_READ_CHARS, MAX_READ_LINES, MAX_SEARCH_MATCHES, parseResultRead, readResultText, overflowText, elidedText } from './readResult';
export type { ResultRead } from './readResult';
