/**
 * The client side of Codex's app-server protocol (`codex app-server`): JSON-RPC, one JSON message a line on the
 * process's stdin and stdout, without the "jsonrpc" member. Requests go both ways: the relay asks (initialize,
 * thread/start, turn/start, turn/interrupt), and the app-server asks back (approvals), each answered by the handler
 * registered for its method, or refused as unknown.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** A request the app-server sends: its method and params; the handler's value is the result. */
type RequestHandler = (params: unknown) => Promise<unknown>;
type NotificationHandler = (method: string, params: unknown) => void;

interface Message {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

/** JSON-RPC's code for a method the receiver does not serve. */
const METHOD_NOT_FOUND = -32601;

export class AppServerConnection {
  readonly #input: Writable;
  readonly #pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  readonly #handlers: Record<string, RequestHandler>;
  readonly #onNotification: NotificationHandler;
  #nextId = 1;
  #closed: Error | undefined;

  /** Reads `output` line by line until it ends; `handlers` answer the app-server's requests by method. */
  constructor(streams: { input: Writable; output: Readable }, handlers: Record<string, RequestHandler>, onNotification: NotificationHandler) {
    this.#input = streams.input;
    this.#handlers = handlers;
    this.#onNotification = onNotification;
    createInterface({ input: streams.output })
      .on('line', (line) => this.#receive(line))
      .on('close', () => this.close(new Error('the Codex app-server exited')));
  }

  /** Sends a request; its result, or rejects with the app-server's error (or the connection's end). */
  request<T>(method: string, params: unknown): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (result) => resolve(result as T), reject });
      this.#send({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.#closed === undefined) this.#send({ method, ...(params === undefined ? {} : { params }) });
  }

  /** Ends the connection: every request still waiting rejects with `why`. */
  close(why: Error = new Error('the connection to the Codex app-server was closed')): void {
    this.#closed ??= why;
    for (const waiting of this.#pending.values()) waiting.reject(this.#closed);
    this.#pending.clear();
  }

  #send(message: Message): void {
    this.#input.write(`${JSON.stringify(message)}\n`);
  }

  #receive(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      return; // Not a protocol line.
    }
    if (message.method === undefined) {
      const waiting = typeof message.id === 'number' ? this.#pending.get(message.id) : undefined;
      if (waiting === undefined) return;
      this.#pending.delete(message.id as number);
      if (message.error !== undefined) waiting.reject(new Error(message.error.message ?? `error ${message.error.code}`));
      else waiting.resolve(message.result);
    } else if (message.id === undefined) {
      this.#onNotification(message.method, message.params);
    } else {
      void this.#answer(message.id, message.method, message.params);
    }
  }

  async #answer(id: number | string, method: string, params: unknown): Promise<void> {
    const handler = this.#handlers[method];
    if (handler === undefined) {
      this.#reply({ id, error: { code: METHOD_NOT_FOUND, message: `the relay does not serve ${method}` } });
      return;
    }
    try {
      this.#reply({ id, result: await handler(params) });
    } catch (error) {
      this.#reply({ id, error: { code: -32000, message: error instanceof Error ? error.message : String(error) } });
    }
  }

  #reply(message: Message): void {
    if (this.#closed === undefined) this.#send(message);
  }
}
