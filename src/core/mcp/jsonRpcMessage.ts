import { parseJSONRPCMessage, type JSONRPCMessage, type JSONRPCResultResponse } from '@modelcontextprotocol/client';

/**
 * `value` (parsed JSON) as a JSON-RPC message; throws when it is not one, as the SDK's
 * `parseJSONRPCMessage` does. A plain result response, the answer to nearly every request, is
 * recognised by hand: the schema tries its four message shapes in turn and builds the issues of
 * each that fails (about 1.3 us a response). What it accepts that way the schema accepts too, and
 * the SDK checks every message once more before it reads it; anything else goes through the schema.
 */
export function readJsonRpcMessage(value: unknown): JSONRPCMessage {
  return isPlainResultResponse(value) ? value : parseJSONRPCMessage(value);
}

/** Exactly `jsonrpc: "2.0"`, an id (string or safe integer) and a result object without `_meta`. */
function isPlainResultResponse(value: unknown): value is JSONRPCResultResponse {
  if (!isObject(value) || value.jsonrpc !== '2.0' || !(typeof value.id === 'string' || Number.isSafeInteger(value.id))) return false;
  if (!isObject(value.result) || '_meta' in value.result) return false;
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key)) keys++;
  return keys === 3;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
