import { createServer, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { ApiError, errorBody, invalid } from './http/errors';
import { newRequestId } from './http/observability';

/**
 * The API's HTTP server. A request that Node's parser refuses before Express sees it (headers
 * over 16 KB, a malformed request line or header) gets the contract's error body and an
 * X-Request-Id, instead of Node's bare status line.
 */
export function createApiServer(app: Express): Server {
  const server = createServer(app);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node does: no answer once a response on this connection has begun.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) return void socket.destroy();
    const error =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('headers_too_large', 'The request line and headers exceed 16 KB')
        : invalid(null, 'The HTTP request is malformed or incomplete');
    const body = JSON.stringify(errorBody(error));
    const head = [
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${newRequestId()}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  });
  return server;
}
