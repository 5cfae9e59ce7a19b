import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousViolations, saveScreenshot } from './browser.ts';
import { PHONE, unreachableActions, widerThanScreen } from './phone-width.ts';

/**
 * A page at both widths, as the e2e suite checks every page: when `ready` resolves, axe at
 * 1280 px, then at 390 px the phone-width rule (nothing wider than the screen, every action
 * within reach) and axe again; with `shots`, `<name>.png` and `<name>-phone.png` (the whole
 * page) in SCREENSHOT_DIR. Leaves the page at 1280 x 800.
 */
export async function checkBothWidths(page: Page, name: string, ready: () => Promise<unknown>, shots: boolean): Promise<void> {
  await ready();
  expect(await seriousViolations(page), `${name}: axe at 1280 px`).toEqual([]);
  if (shots) await saveScreenshot(page, name);
  await page.setViewportSize(PHONE);
  await ready();
  expect(await widerThanScreen(page), `${name}: wider than the screen`).toEqual([]);
  expect(await unreachableActions(page), `${name}: actions out of reach`).toEqual([]);
  expect(await seriousViolations(page), `${name}: axe at 390 px`).toEqual([]);
  if (shots) await saveScreenshot(page, `${name}-phone`, { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
}
