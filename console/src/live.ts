import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

export type LiveState = 'connecting' | 'live' | 'offline';
const STATES = { connecting: 'connecting', open: 'live', closed: 'offline' } as const;

/**
 * Follows a store's change stream (created / updated / deleted of items the caller may read) and calls `onChange`
 * at most every `throttleMs` while events arrive, so a burst of writes costs one reload. The SDK's subscription
 * reconnects with back-off and resumes with Last-Event-ID; a reset (resume impossible) reloads too.
 */
export function useStoreStream(storeId: string, onChange: () => void, throttleMs = 250): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pending = false;
    const fire = () => {
      if (timer) {
        pending = true;
        return;
      }
      onChange();
      timer = setTimeout(function again() {
        timer = undefined;
        if (pending) {
          pending = false;
          fire();
        }
      }, throttleMs);
    };
    const unsubscribe = api.subscribeStore(storeId, fire, (s) => setState(STATES[s]));
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
    // onChange is expected to be stable for a store (it invalidates that store's queries).
  }, [storeId]);
  return state;
}
