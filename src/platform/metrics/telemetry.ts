/**
 * Counts that parts of the service keep for the operator's metrics, per process, without knowing about Prometheus:
 * live streams open by stream name, flow proxy calls in flight and upstream failures by instance. The composition
 * root builds one per app and hands it to the parts that count; the metrics registry reads it at each scrape.
 * Label values are names the service chooses (stream names) or configured ones (flow instance ids), never input.
 */
export class Telemetry {
  private readonly streams = new Map<string, number>();
  private readonly flow = new Map<string, { inFlight: number; upstreamErrors: number }>();

  /** Counts one open live stream (SSE) of `stream`; the answer counts it closed, once however often it is called. */
  streamOpened(stream: string): () => void {
    this.streams.set(stream, (this.streams.get(stream) ?? 0) + 1);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.streams.set(stream, (this.streams.get(stream) ?? 1) - 1);
    };
  }

  /** Counts one proxied call to a flow instance in flight; the answer counts it done, once. */
  flowCallStarted(instance: string): () => void {
    const counts = this.flowOf(instance);
    counts.inFlight++;
    let running = true;
    return () => {
      if (!running) return;
      running = false;
      counts.inFlight--;
    };
  }

  /** A proxied call that the instance failed: unreachable, timed out, or its answer broke off. */
  flowUpstreamError(instance: string): void {
    this.flowOf(instance).upstreamErrors++;
  }

  /** Open streams by stream name (names seen so far, also at 0). */
  streamCounts(): ReadonlyMap<string, number> {
    return this.streams;
  }

  /** Flow calls in flight and upstream errors by instance id (instances called so far). */
  flowCounts(): ReadonlyMap<string, { readonly inFlight: number; readonly upstreamErrors: number }> {
    return this.flow;
  }

  private flowOf(instance: string) {
    let counts = this.flow.get(instance);
    if (!counts) this.flow.set(instance, (counts = { inFlight: 0, upstreamErrors: 0 }));
    return counts;
  }
}
