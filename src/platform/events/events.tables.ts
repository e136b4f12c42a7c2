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

export interface EventsTables {
  change_events: ChangeEventsTable;
  change_event_counters: ChangeEventCountersTable;
}

