import type { Page } from 'playwright-core';

/** The phone the web app must fit: an iPhone 12-14 class screen. */
export const PHONE = { width: 390, height: 844 };

/**
 * What breaks the phone-width rule on the page as it stands: the document wider than the
 * screen, or an element whose box reaches past the right edge while no scrolling (or
 * clipping) box of its own holds it. An element inside a box that scrolls sideways on
 * purpose is that box's business, unless it is positioned out of it (an absolutely
 * positioned label whose containing block is outside the box widens the page).
 */
export async function widerThanScreen(page: Page): Promise<string[]> {
  // A string, not a function: the test runner's transform names inner functions with a helper the page lacks.
  return page.evaluate<string[]>(WIDER_THAN_SCREEN);
}

/** A Mantine notification (a toast) on screen. */
const NOTIFICATION = '.mantine-Notifications-notification';

const WIDER_THAN_SCREEN = `(() => {
  const width = window.innerWidth;
  const problems = [];
  const doc = document.documentElement.scrollWidth;
  if (doc > width) problems.push('the page is ' + doc + ' px wide');
  const name = (el) => {
    const label = el.getAttribute('aria-label') || el.getAttribute('data-testid') || (el.textContent || '').trim().slice(0, 40);
    const cls = typeof el.className === 'string' && el.className ? '.' + el.className.split(/\\s+/).slice(0, 2).join('.') : '';
    return '<' + el.tagName.toLowerCase() + cls + '> "' + label + '"';
  };
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.right <= width + 0.5) continue;
    if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) continue;
    // A toast sliding in or out crosses the edge on its way (its transition moves it sideways);
    // one at rest must fit like anything else.
    const toast = el.closest(${JSON.stringify(NOTIFICATION)});
    if (toast && [toast, toast.parentElement].some((t) => t && t.getAnimations({ subtree: true }).length > 0)) continue;
    const style = getComputedStyle(el);
    // Held by an ancestor that scrolls or clips sideways, on the element's own containing-block
    // chain: an absolutely positioned label whose containing block is outside a table's
    // scroll box escapes that box and widens the page.
    const positioned = style.position === 'absolute' || style.position === 'fixed';
    const anchor = el.offsetParent;
    let held = false;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      if (!positioned || (anchor && (p === anchor || p.contains(anchor)))) {
        held = true;
        break;
      }
    }
    if (!held) problems.push(name(el) + ' reaches ' + Math.round(r.right) + ' px');
  }
  return problems.slice(0, 15);
})()`;

/**
 * Buttons, links and other controls of the page that cannot be brought into view: after
 * scrolling each one into view (as a finger would), its centre must be on screen and the
 * topmost element there must be it (or its label).
 */
export async function unreachableActions(page: Page, scope = 'body'): Promise<string[]> {
  // A notification of an earlier step (they close after 4 s) may sit over the actions for now:
  // the rule is about the page's layout, so the check waits it out.
  await page.locator(NOTIFICATION).first().waitFor({ state: 'detached', timeout: 15_000 });
  const problems = await page.evaluate<string[]>(`(${UNREACHABLE_ACTIONS})(${JSON.stringify(scope)})`);
  await page.evaluate('window.scrollTo(0, 0)');
  return problems;
}

const UNREACHABLE_ACTIONS = `(scope) => {
  const problems = [];
  const selector = 'button, a[href], [role=button], [role=switch], input[type=checkbox], input[type=radio], select, input:not([type=hidden]), textarea';
  for (const el of Array.from(document.querySelector(scope).querySelectorAll(selector))) {
    if (el.closest('[aria-hidden=true], [inert]')) continue;
    // Not drawn (a closed <details>, display none, visibility hidden): nothing to reach.
    if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) continue;
    const r0 = el.getBoundingClientRect();
    // Visually hidden inputs of switches and checkboxes: their label is what a finger reaches.
    if (r0.width < 2 || r0.height < 2) continue;
    if (r0.right < 0) continue; // a skip link, parked off screen until focused
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const label = el.getAttribute('aria-label') || (el.textContent || '').trim().slice(0, 40) || el.getAttribute('name') || el.tagName.toLowerCase();
    if (x < 0 || x > window.innerWidth || y < 0 || y > window.innerHeight) {
      problems.push('"' + label + '" stays off screen at ' + Math.round(x) + ',' + Math.round(y));
      continue;
    }
    const top = document.elementFromPoint(x, y);
    const owner = el.closest('label') || (el.id ? document.querySelector('label[for="' + el.id + '"]') : null);
    if (top && top !== el && !el.contains(top) && !top.contains(el) && !(owner && owner.contains(top))) {
      problems.push('"' + label + '" is covered by <' + top.tagName.toLowerCase() + '> "' + (top.textContent || '').trim().slice(0, 30) + '"');
    }
  }
  return problems;
}`;
