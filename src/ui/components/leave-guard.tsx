/**
 * Unsaved work is not lost by a click: while `when`, following a link of the app asks first, in a dialog,
 * and closing or reloading the browser tab asks through the browser. (React Router's useBlocker needs its
 * data router, which would add about a sixth to the first bundle; a link is followed by a click, so a
 * click listener ahead of the links is enough here. Back and Forward are not asked about: pages that
 * guard keep their text elsewhere too, see drafts.ts.)
 */
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { Dialog } from './dialog';

/** The in-app address a click would follow, or undefined (a modified click, a new tab, another origin). */
function followedLink(e: MouseEvent): string | undefined {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return undefined;
  const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
  if (!(a instanceof HTMLAnchorElement) || (a.target && a.target !== '_self') || a.hasAttribute('download')) return undefined;
  const url = new URL(a.href, window.location.href);
  if (url.origin !== window.location.origin) return undefined;
  const to = `${url.pathname}${url.search}${url.hash}`;
  return to === `${window.location.pathname}${window.location.search}${window.location.hash}` ? undefined : to;
}

export function LeaveGuard({ when, what, onLeave }: { when: boolean; what: string; onLeave?: () => void }) {
  const navigate = useNavigate();
  const [pending, setPending] = useState<string>();
  useEffect(() => {
    if (!when) return undefined;
    const click = (e: MouseEvent) => {
      const to = followedLink(e);
      if (to === undefined) return;
      // Before React's own listener (on the app's root) sees it: the link is not followed.
      e.preventDefault();
      e.stopPropagation();
      setPending(to);
    };
    const unload = (e: BeforeUnloadEvent) => e.preventDefault();
    document.addEventListener('click', click, true);
    window.addEventListener('beforeunload', unload);
    return () => {
      document.removeEventListener('click', click, true);
      window.removeEventListener('beforeunload', unload);
    };
  }, [when]);
  const leave = () => {
    const to = pending;
    setPending(undefined);
    onLeave?.();
    if (to !== undefined) void navigate(to);
  };
  return (
    <Dialog open={pending !== undefined} title="Leave without saving?" onClose={() => setPending(undefined)}>
      <p>{what} has changes that are not saved. They are lost if you leave.</p>
      <div className="actions dialog-actions">
        <button type="button" className="primary" onClick={() => setPending(undefined)}>Stay</button>
        <button type="button" className="danger" onClick={leave}>Leave without saving</button>
      </div>
    </Dialog>
  );
}
