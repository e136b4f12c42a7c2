import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

export type LiveState = 'connecting' | 'live' | 'offline';

/**
 * Follows a store's change stream (created / updated / deleted of items the caller may read) and calls `onChange`
 * at most every `throttleMs` while events arrive, so a burst of writes costs one reload. EventSource reconnects by
 * itself and resumes with Last-Event-ID.
 */
export function useStoreStream(storeId: string, onChange: () => void, throttleMs = 250): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  useEffect(() => {
    const source = api.storeStream(storeId);
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
    source.onopen = () => setState('live');
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
    for (const type of ['created', 'updated', 'deleted']) source.addEventListener(type, fire);
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
    };
    // onChange is expected to be stable for a store (it invalidates that store's queries).
  }, [storeId]);
  return state;
}
