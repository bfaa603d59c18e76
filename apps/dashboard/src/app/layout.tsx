import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Account } from '../api/types';
import { PlanBadge } from '../components/plan-gate';
import { Link } from './link';
import type { ScreenDef } from './screen';
import { PLAN_NAMES } from './screen';
import { useSession } from './session';

/** Signed-in frame: skip link, navigation (a toggled menu on narrow screens), the screen. */
export function Layout({
  screens,
  active,
  account,
  children,
}: {
  screens: ScreenDef[];
  active: ScreenDef | null;
  account: Account;
  children: ComponentChildren;
}) {
  const { logout } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const nav = screens.filter((s) => s.nav && !s.public).sort((a, b) => a.nav!.order - b.nav!.order);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link to="/" class="brand">
          Account DNS
        </Link>
        <button
          type="button"
          class="menu-toggle button-secondary"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div class="account-box">
          <span class="who">
            {account.username} · {PLAN_NAMES[account.plan]}
          </span>
          <button type="button" class="button-secondary" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </header>
      <div class="body">
        <nav id="main-nav" class={menuOpen ? 'nav open' : 'nav'} aria-label="Main">
          <ul>
            {nav.map((s) => (
              <li key={s.path}>
                <Link to={s.path} aria-current={active === s ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                  {s.nav!.label}
                  {s.requires && !s.requires.allows(account) && <PlanBadge label={s.requires.badge} />}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}

/** Signed-out frame for sign up and log in. */
export function PublicLayout({ children }: { children: ComponentChildren }) {
  return (
    <div class="public-shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="public-header">
        <span class="brand">Account DNS</span>
      </header>
      <main id="main" tabIndex={-1} class="public-main">
        {children}
      </main>
    </div>
  );
}
