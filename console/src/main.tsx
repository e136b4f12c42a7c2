import { render } from 'preact';
import { QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { App } from './app';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // The API is the authority and the store pages refresh live: no retries that hide an error, no stale windows.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 0 },
  },
});

render(
  <QueryClientProvider client={queryClient}>
    <App />
  </QueryClientProvider>,
  document.getElementById('app')!,
);
