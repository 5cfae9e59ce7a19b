import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider, createTheme } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { createAppRouter, preloadPageCode } from './router.tsx';
import { isUnauthorized } from './api/client.ts';
import { SESSION_KEY, fetchSession } from './api/session.ts';

const theme = createTheme({
  primaryColor: 'indigo',
  // Shade 7: white text on filled buttons meets WCAG AA (shade 6 does not).
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'sm',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  fontSizes: { xs: '12px', sm: '13px', md: '14px', lg: '16px', xl: '18px' },
  // Close buttons are otherwise unnamed icon buttons. Plain objects, not Modal.extend(): the
  // components themselves stay out of the first page's bundle.
  components: {
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } } },
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // A spinner's aria-label ("Loading the trace") is read out only on an element with a role:
    // on a bare span axe rightly calls it a prohibited attribute.
    Loader: { defaultProps: { role: 'status' } },
  },
});

const queryClient: QueryClient = new QueryClient({
  defaultOptions: { queries: { refetchOnWindowFocus: false, retry: 1 } },
  // A session that ended (expired, revoked, signed out in another tab): forget it; the shell then goes to sign-in.
  queryCache: new QueryCache({
    onError: (error, query) => {
      if (isUnauthorized(error) && query.queryKey[0] !== SESSION_KEY[0]) queryClient.setQueryData(SESSION_KEY, null);
    },
  }),
});
const router = createAppRouter(queryClient);
// index.html's script asks for /api/auth/session, and the app's fetch hands that answer to the
// first session check of the page, however late: asked for here on every page (sign-in included),
// it is used now, and never answers a check made after signing in with the state from before.
void queryClient.prefetchQuery({ queryKey: SESSION_KEY, queryFn: fetchSession });
// The page's code, the session check and the page's data start now, not after React's first render.
preloadPageCode(router);
router.load().catch(console.error);
// The frame index.html draws before any script runs gives way to the first page (or error) drawn.
const stopWatching = router.subscribe('onResolved', () => {
  document.getElementById('boot')?.remove();
  stopWatching();
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Notifications position="bottom-right" />
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
