import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';

/** Debian's Chromium (scripts/debian-test-packages.txt); playwright-core never downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the dashboard tests write screenshots (README "Dashboard"); gitignored. */
export const SCREENSHOT_DIR = join(__dirname, '..', '..', 'test-output', 'screenshots');

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 812 };

export interface DashboardBrowser {
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy violations and page errors seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** One headless Chromium for a suite, with the flags a closed network needs and a fresh profile. */
export async function launchDashboardBrowser(): Promise<DashboardBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'dash-chromium-'));
  // A persistent context on a fresh directory is Playwright's way to pass --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: DESKTOP,
    acceptDownloads: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core on the current page (WCAG 2.x A/AA rules). Injected through the DevTools
 * protocol, so the page's strict CSP stays in force for the page's own scripts.
 */
export async function axeScan(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // In-page code as text: this file compiles without the DOM library.
  return (await page.evaluate(`(async () => {
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    if (r.passes.length === 0) throw new Error('axe-core checked nothing');
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  })()`)) as AxeViolation[];
}

export const serious = (violations: AxeViolation[]) =>
  violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/** Full-page screenshots of the current screen at desktop and phone width. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-375.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/** Elements wider than the viewport (something cut off or forcing sideways scrolling). */
export async function horizontalOverflow(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const out = [];
    document.querySelectorAll('body *').forEach((el) => {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 1 && !el.closest('.table-scroll, .visually-hidden, .chart-canvas')) {
        out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + (el.getAttribute('class') || '').replace(/ /g, '.') + ' right=' + Math.round(r.right));
      }
    });
    if (document.documentElement.scrollWidth > width) out.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
    return out.slice(0, 10);
  })()`)) as string[];
}

/** Full-page screenshots of the current screen at the given widths (issue 27 asks for 1280 and 390 px); the viewport returns to desktop. */
export async function screenshotsAt(page: Page, name: string, widths: number[]): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const width of widths) {
    await page.setViewportSize({ width, height: width === DESKTOP.width ? DESKTOP.height : PHONE.height });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}
