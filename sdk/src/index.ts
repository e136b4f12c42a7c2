// @svc-platform/client: the typed client of the application platform service. openapi-fetch over the types
// generated from the service's OpenAPI document, plus auth, typed errors, paging and live streams.
export { createClient } from './client.js';
export type {
  ClientCore,
  ClientOptions,
  FetchFunction,
  LoginInput,
  Middleware,
  SessionRecord,
  SvcClient,
} from './client.js';
export type { Auth, TokenSource } from './auth.js';
export { CSRF_HEADER } from './auth.js';
export { ApiError, isApiError, unwrap, UNEXPECTED_ANSWER } from './errors.js';
export type { ErrorBody, FetchResult } from './errors.js';
export { API_PROTOCOL_PATH } from './dm.js';
export type { DmHelpers } from './dm.js';
export type {
  DmAnswer,
  DmAnswerOf,
  DmCalls,
  DmContext,
  DmMethod,
  DmParameters,
  DmRequest,
  FallbackDmCalls,
} from './dm-types.js';
export type { FilterCondition, ItemsOptions, StorageHelpers, StoreChange, StoreEvent, StoreItem } from './storage.js';
export { NOTIFICATION_STREAM_PATH } from './notifications.js';
export type { Notification, NotificationEvent, NotificationHelpers, NotificationStreamEvent } from './notifications.js';
export { BACKOFF_FIRST_MS, BACKOFF_MAX_MS, backoffDelay } from './live.js';
export type { ResetEvent, StreamOptions, StreamState, Unsubscribe } from './live.js';
export { SseParser } from './sse.js';
export type { SseHandlers, SseMessage } from './sse.js';
export type { components, paths } from './schema.js';
