/**
 * The page's first data, asked for while the app's code is still arriving and starting (a fresh
 * browser spends most of its first second there): the session check on every page and, on the
 * traces list, its first page of traces (a POST: it needs the session's CSRF token).
 *
 * Bundled on its own and written into index.html as an inline script (vite.config.ts; the server
 * allows it by its hash, web-app.ts). It reads the URL with the list's own codec (the router's
 * parseSearch, the route's readListSearch, toSearchRequest and the range's anchor, which it
 * leaves on the window for the app), so its body is the one the page's request will have. The
 * app's fetch (api/client.ts) hands each of its requests, once, the answer of the one started
 * here with the same method, address, project and body; what is never asked for again is dropped.
 */
import { parseSearch } from './lib/search.ts';
import { firstPageBody, rangeAnchor, readListSearch, toSearchRequest } from './lib/list-search.ts';
import { withReadAfter } from './lib/read-after.ts';

interface EarlyRequest {
  key: string;
  response: Promise<Response | null>;
}

const early: EarlyRequest[] = ((window as { __spyglassEarly?: EarlyRequest[] }).__spyglassEarly = []);
const take = (key: string, response: Promise<Response>) => early.push({ key, response: response.catch(() => null) });
// With the tab's last write position, as the app's client sends it (lib/read-after.ts).
const session = fetch('/api/auth/session', { credentials: 'same-origin', headers: withReadAfter({ accept: 'application/json' }) });
take('GET /api/auth/session  ', session);

const list = /^\/p\/([^/]+)\/traces\/?$/.exec(location.pathname);
if (list) {
  const csrf = session
    .then((r): Promise<{ csrfToken?: string }> | undefined => (r.ok ? r.clone().json() : undefined))
    .then((s) => s?.csrfToken)
    .catch(() => undefined);
  const project = decodeURIComponent(list[1]);
  const search = readListSearch(parseSearch(location.search));
  const body = JSON.stringify(firstPageBody(toSearchRequest(search, rangeAnchor(search))));
  take(
    `POST /api/trace/search ${project} ${body}`,
    csrf.then((token) => {
      if (!token) throw new Error('signed out');
      return fetch('/api/trace/search', {
        method: 'POST',
        credentials: 'same-origin',
        headers: withReadAfter({ accept: 'application/json', 'content-type': 'application/json', 'x-project-id': project, 'x-csrf-token': token }),
        body,
      });
    }),
  );
}
