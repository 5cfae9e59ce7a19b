import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

// Apart from browser.ts: the bench imports that file outside vitest, where `expect` cannot load.

/** Waits until the form field shows `text` as its error, tied to it (aria-describedby), as a screen reader reads it. */
export async function expectSaidAt(page: Page, field: Locator, text: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
        return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(' ');
      },
      { timeout: 10_000 },
    )
    .toContain(text);
}
