import { Type, type Static } from '@sinclair/typebox';
import { QueryInteger } from '../../platform/http/schemas.js';

export const RECIPIENT_KINDS = ['user', 'role', 'organisation'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];

/** Caps that keep one notification a notification (a subject is a line, not a document). */
export const LIMITS = { subject: 1_000, message: 100_000, recipients: 1_000, name: 256 } as const;

/**
 * A notification as written (interface-spec, Notification). `date` and `version` are the server's: accepted in a
 * body (a client may send back what it read) and ignored. Other unknown members are ignored too.
 */
export const NotificationBody = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.name, pattern: '^[^/?#]+$' })),
    priority: Type.Optional(
      Type.Union([Type.Literal(0), Type.Literal(5), Type.Literal(10)], {
        description: '0 silent, 5 toast (default), 10 popup',
      }),
    ),
    subject: Type.String({ minLength: 1, maxLength: LIMITS.subject }),
    message: Type.Optional(Type.String({ maxLength: LIMITS.message })),
    recipients: Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.name }), {
      minItems: 1,
      maxItems: LIMITS.recipients,
    }),
    recipientsType: Type.Union(RECIPIENT_KINDS.map((k) => Type.Literal(k))),
    originator: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.name })),
    icon: Type.Optional(Type.String({ maxLength: LIMITS.name })),
    type: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'info (default), warn, error, link, ...: the list is open',
      }),
    ),
    typeSpecificData: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  {
    additionalProperties: true,
    examples: [
      {
        id: 'welcome-1',
        subject: 'Welcome',
        message: 'The new portal is open',
        recipients: ['NOTIFICATION_ADMIN'],
        recipientsType: 'role',
      },
    ],
  },
);
export type NotificationInput = Static<typeof NotificationBody>;

/** What the service returns: the stored fields with their defaults, plus the server's date and version. */
export const NotificationSchema = Type.Object({
  id: Type.String(),
  priority: Type.Integer(),
  subject: Type.String(),
  message: Type.Optional(Type.String()),
  recipients: Type.Array(Type.String()),
  recipientsType: Type.String(),
  originator: Type.String(),
  icon: Type.Optional(Type.String()),
  type: Type.String(),
  typeSpecificData: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  date: Type.String({ format: 'date-time' }),
  version: Type.Integer(),
});

/** The data of a stream's `notification` event. */
export const NotificationEventSchema = Type.Object(
  {
    action: Type.Union([Type.Literal('add'), Type.Literal('update'), Type.Literal('delete')]),
    notification: NotificationSchema,
  },
  { description: 'A notification added, updated or deleted' },
);

/** The data of a stream's `reset` event: why the stream could not resume from Last-Event-ID. */
export const StreamResetSchema = Type.Object(
  {
    reason: Type.Union(
      ['unavailable', 'invalid', 'expired', 'unknown'].map((r) => Type.Literal(r)),
      { description: 'unavailable, invalid, expired or unknown' },
    ),
    message: Type.String(),
  },
  { description: 'The stream could not resume; it starts from now' },
);

export const NotificationListSchema = Type.Object({ total: Type.Integer(), items: Type.Array(NotificationSchema) });

export const NotificationIdParams = Type.Object({
  notificationId: Type.String({ minLength: 1, maxLength: LIMITS.name, examples: ['welcome-1'] }),
});

/** A notification as answered, for the document's examples. */
export const NOTIFICATION_EXAMPLE = {
  id: 'welcome-1',
  priority: 5,
  subject: 'Welcome',
  message: 'The new portal is open',
  recipients: ['NOTIFICATION_ADMIN'],
  recipientsType: 'role',
  originator: 'admin',
  type: 'info',
  date: '2026-11-27T07:04:34.357Z',
  version: 1,
};
export type NotificationIdParams = Static<typeof NotificationIdParams>;

export const ListQuery = Type.Object({
  start: QueryInteger({ default: 0 }),
  /** Cut to 10,000, as the storage list is. */
  limit: QueryInteger({ default: 1000, description: 'cut to 10000' }),
});
export type ListQuery = Static<typeof ListQuery>;

export const MaintenanceSchema = Type.Object(
  { active: Type.Boolean() },
  { additionalProperties: false, examples: [{ active: false }] },
);
export type Maintenance = Static<typeof MaintenanceSchema>;

export const StreamQuery = Type.Object({
  /** For clients that cannot set the Last-Event-ID header (EventSource polyfills); the header wins. */
  lastEventId: Type.Optional(Type.String({ maxLength: 64 })),
});
export type StreamQuery = Static<typeof StreamQuery>;
