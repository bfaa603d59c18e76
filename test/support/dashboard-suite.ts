import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  axeScan,
  AxeViolation,
  DashboardBrowser,
  horizontalOverflow,
  launchDashboardBrowser,
  PHONE,
  screenshots,
  serious,
} from './browser';
import { registerAndLogin } from './http-client';
import { ServerProcess, startServerProcess } from './server-process';

/**
 * One dashboard browser suite: `npm start`'s compiled server as its own process, Debian's
 * Chromium, and the per-screen checks every screen gets (axe-core at desktop and phone
 * width, sideways overflow, screenshots at 1280 and 375 px).
 */
export interface DashboardSuite {
  server: ServerProcess;
  browser: DashboardBrowser;
  page: Page;
  dataDir: string;
  /** axe findings (serious/critical) and overflow per checked screen. */
  a11y: Record<string, string[]>;
  overflow: Record<string, string[]>;
  /** Opens `/app<path>` and waits for the screen's heading and data. */
  go(path: string): Promise<void>;
  /** Waits for the screen titled `title`. */
  h1(title: string): Promise<void>;
  /** Scans, measures and photographs the screen on display. */
  checkScreen(name: string): Promise<void>;
  /** Registers an account (plan and add-on set by the operator API), then logs in through the login screen. */
  signIn(options?: SignInOptions): Promise<SignedIn>;
  close(): Promise<void>;
}

export interface SignInOptions {
  plan?: 'free' | 'plus' | 'pro' | 'elite';
  emailAuthDomains?: string[];
}

export interface SignedIn {
  id: number;
  username: string;
  password: string;
  /** A Bearer session for test setup through the API (zone import, verification). */
  token: string;
}

const describeViolation = (v: AxeViolation) =>
  `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`;

/**
 * The checks every screen gets: axe-core (serious and critical findings) at desktop and
 * phone width, elements wider than the phone, and screenshots at 1280 and 375 px. Findings
 * are recorded under the screen's name for the suite's final assertion.
 */
export function screenChecker(
  page: Page,
  a11y: Record<string, string[]>,
  overflow: Record<string, string[]>,
): (name: string) => Promise<void> {
  return async (name) => {
    await page.waitForSelector('.loading', { state: 'detached', timeout: 10_000 }).catch(() => undefined);
    a11y[name] = serious(await axeScan(page)).map(describeViolation);
    await page.setViewportSize(PHONE);
    a11y[`${name} at 375 px`] = serious(await axeScan(page)).map(describeViolation);
    overflow[name] = await horizontalOverflow(page);
    await screenshots(page, name);
  };
}

export async function startDashboardSuite(env: Record<string, string> = {}): Promise<DashboardSuite> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dashboard-e2e-'));
  const server = await startServerProcess(dataDir, env);
  const browser = await launchDashboardBrowser();
  const page = browser.page;
  const a11y: Record<string, string[]> = {};
  const overflow: Record<string, string[]> = {};
  const suite: DashboardSuite = {
    server,
    browser,
    page,
    dataDir,
    a11y,
    overflow,
    async go(path) {
      await page.goto(`${server.url}/app${path}`);
      await page.waitForSelector('h1');
      await page.waitForSelector('.loading', { state: 'detached' });
    },
    h1: (title) => page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor(),
    checkScreen: screenChecker(page, a11y, overflow),
    async signIn(options = {}) {
      const user = await registerAndLogin(server.http, { plan: options.plan });
      if (options.emailAuthDomains) {
        const sub = await server.http.admin('PUT', `/admin/accounts/${user.id}/subscription`, {
          email_auth: { tier: 'standard', domains: options.emailAuthDomains },
        });
        if (sub.status !== 200) throw new Error(`subscription: ${sub.status} ${sub.text}`);
      }
      await suite.go('/');
      await page.getByLabel('Username or email').fill(user.username);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await suite.h1('Overview');
      return { id: user.id, username: user.username, password: user.password, token: user.token };
    },
    async close() {
      await browser.close();
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return suite;
}

/** What every suite asserts at its end: every checked screen is clean at both widths and no CSP violation or page error happened. */
export function findings(suite: DashboardSuite) {
  return {
    a11y: Object.fromEntries(Object.entries(suite.a11y).filter(([, v]) => v.length)),
    overflow: Object.fromEntries(Object.entries(suite.overflow).filter(([, v]) => v.length)),
    problems: suite.browser.problems,
  };
}

/** Polls `read` until `ok` holds or the time runs out; returns the last value for the assertion. */
export async function eventually<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}
