import type * as http from 'node:http';

/** The Node request as a web `Request` (what the SDK's HTTP serving takes), its body already read. */
export function toWebRequest(req: http.IncomingMessage, body: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
  return new Request(url, { method: req.method, headers, body: body === undefined || req.method === 'GET' || req.method === 'HEAD' ? undefined : body, signal });
}

/** Writes a web `Response` to the Node response, streaming its body (SSE) as it comes. */
export async function writeResponse(res: http.ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The stream ended with the connection.
  } finally {
    res.off('close', stop);
    res.end();
  }
}
