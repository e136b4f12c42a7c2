// A Server-Sent Events client over a real socket, as a browser's EventSource reads the stream: frames split on blank
// lines, `id`, `event` and `data` fields, comments ignored (but counted, for heartbeats).
import { request } from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

export interface SseConnection {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  comments: number;
  retry?: number;
  /** Body text of a non-200 answer. */
  body: string;
  /** Resolves once `count` events (of the type, when given) have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, event?: string, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
  closed: Promise<void>;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let buffer = '';
      const waiters = new Set<() => boolean>();
      let closedResolve!: () => void;
      const conn: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: 0,
        body: '',
        waitFor(count, event, timeoutMs = 5000) {
          const matching = () => conn.events.filter((e) => event === undefined || e.event === event);
          return new Promise((res2, rej2) => {
            const check = () => {
              const m = matching();
              if (m.length >= count) {
                clearTimeout(timer);
                res2(m);
                return true;
              }
              return false;
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rej2(
                new Error(`timed out waiting for ${count} ${event ?? ''} events; got ${JSON.stringify(conn.events)}`),
              );
            }, timeoutMs);
            if (!check()) waiters.add(check);
          });
        },
        close: () => req.destroy(),
        closed: new Promise<void>((r) => (closedResolve = r)),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (conn.status !== 200) {
          conn.body += chunk;
          return;
        }
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const ev: SseEvent = { event: 'message', data: '' };
          const data: string[] = [];
          let fields = 0;
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) {
              conn.comments++;
              continue;
            }
            const colon = line.indexOf(':');
            const name = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            fields++;
            if (name === 'id') ev.id = value;
            else if (name === 'event') ev.event = value;
            else if (name === 'data') data.push(value);
            else if (name === 'retry') conn.retry = Number(value);
          }
          ev.data = data.join('\n');
          if (fields > 0 && (data.length > 0 || ev.id !== undefined)) conn.events.push(ev);
        }
        for (const w of [...waiters]) if (w()) waiters.delete(w);
      });
      res.on('close', () => closedResolve());
      res.on('error', () => closedResolve());
      if (conn.status !== 200) res.on('end', () => resolve(conn));
      else resolve(conn);
    });
    req.on('error', reject);
    req.end();
  });
}
