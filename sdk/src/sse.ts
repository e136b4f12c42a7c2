// A Server-Sent Events parser as the HTML standard defines it (text/event-stream): lines end in CRLF, LF or CR;
// `data` lines join with LF; a blank line dispatches; `id` sets the last event id (kept across events, not with NUL);
// `retry` takes digits only; comment lines (`:`) are counted; a leading BOM is dropped.

export interface SseMessage {
  /** The event type, `message` when the frame names none. */
  event: string;
  data: string;
  /** The last event id as of this event (the stream's, kept across events), if one was ever set. */
  id?: string;
}

export interface SseHandlers {
  onEvent(message: SseMessage): void;
  onRetry?(ms: number): void;
  onComment?(text: string): void;
}

export class SseParser {
  private buffer = '';
  private started = false;
  private skipLf = false;
  private data: string[] = [];
  private eventType = '';
  private hasData = false;
  /** The last event id, as the stream set it; survives frames (and reconnects, when the caller keeps it). */
  lastEventId: string | undefined;

  constructor(
    private readonly handlers: SseHandlers,
    lastEventId?: string,
  ) {
    this.lastEventId = lastEventId;
  }

  /** Feeds decoded text; events are dispatched as their blank line arrives. */
  push(text: string): void {
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.skipLf && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.skipLf = false;
    this.buffer += chunk;
    let from = 0;
    for (;;) {
      const cr = this.buffer.indexOf('\r', from);
      const lf = this.buffer.indexOf('\n', from);
      if (cr < 0 && lf < 0) break;
      let end: number;
      let next: number;
      if (lf >= 0 && (cr < 0 || lf < cr)) {
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        if (cr + 1 < this.buffer.length) next = this.buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
        else {
          // A CR at the end of the chunk: the LF of its CRLF may come with the next one.
          next = cr + 1;
          this.skipLf = true;
        }
      }
      this.line(this.buffer.slice(from, end));
      from = next;
    }
    this.buffer = this.buffer.slice(from);
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) {
      this.handlers.onComment?.(line.slice(1).replace(/^ /, ''));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.handlers.onRetry?.(Number(value));
        break;
      default:
      // unknown fields are ignored
    }
  }

  private dispatch(): void {
    const type = this.eventType || 'message';
    const hadData = this.hasData;
    const data = this.data.join('\n');
    this.data = [];
    this.eventType = '';
    this.hasData = false;
    if (!hadData) return;
    this.handlers.onEvent({ event: type, data, id: this.lastEventId });
  }
}
