/** One published event, kept for the retention window so that subscribers can resume after a gap. */
export interface ChangeEventsTable {
  tenant_id: string;
  /** Per tenant, gapless and in commit order: taken from the tenant's counter row inside the writing transaction. */
  id: number;
  topic: string;
  /** The payload as JSON text. */
  payload: string;
  created_on: number;
}

export interface ChangeEventCountersTable {
  tenant_id: string;
  last_id: number;
}

/** Instances listening on the database, with their last sign of life (several instances only). */
export interface FeedInstancesTable {
  instance_id: string;
  seen_on: number;
}

/** Per instance and tenant, the last event of an acknowledged topic the instance has delivered. */
export interface FeedAcksTable {
  instance_id: string;
  tenant_id: string;
  last_id: number;
}

export interface EventsTables {
  change_events: ChangeEventsTable;
  change_event_counters: ChangeEventCountersTable;
  feed_instances: FeedInstancesTable;
  feed_acks: FeedAcksTable;
}
