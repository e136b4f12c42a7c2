/** The change feed's topic of notification writes (add, update, delete). */
export const NOTIFICATION_TOPIC = 'notification';
