import type { ComponentChildren } from 'preact';
import { href, navigate } from './router';

/** An in-app link: a real <a href> (open in new tab works), navigated without a reload. */
export function Link({
  to,
  children,
  class: cls,
  onClick,
  ...aria
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  onClick?: () => void;
  'aria-current'?: 'page';
}) {
  return (
    <a
      href={href(to)}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        onClick?.();
        navigate(to);
      }}
      class={cls}
      {...aria}
    >
      {children}
    </a>
  );
}
