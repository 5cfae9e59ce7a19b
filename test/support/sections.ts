import type { Locator, Page } from 'playwright-core';

/**
 * The top navigation's sections, ready to click: on a phone they fold behind the "Sections"
 * button, which this opens first (at desktop width the button is not drawn and the sections
 * are always shown). Following a link closes the menu again.
 */
export async function sections(page: Page): Promise<Locator> {
  // The brand link is drawn at both widths (the folded sections are hidden from role queries until opened).
  await page.getByRole('link', { name: 'Spyglass: traces' }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Sections' });
  const button = page.getByRole('button', { name: /^Sections/ });
  if ((await button.isVisible()) && (await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  await nav.waitFor({ state: 'visible' });
  return nav;
}

/** Closes the phone's sections menu when it is open (Escape); nothing at desktop width. */
export async function closeSections(page: Page): Promise<void> {
  const button = page.getByRole('button', { name: /^Sections/ });
  if ((await button.isVisible()) && (await button.getAttribute('aria-expanded')) === 'true') {
    await page.keyboard.press('Escape');
    await page.getByRole('navigation', { name: 'Sections' }).waitFor({ state: 'hidden' });
  }
}
