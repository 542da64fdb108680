// The tab's title: what the page shows, then the relay's name, so a person with several tabs tells them apart.
import { useEffect } from 'preact/hooks';

/** The relay's name, set once the console knows it (the frame signs in first). */
let relayName = '';

/** Remembers the relay's name for every title after. */
export function setRelayName(name: string): void {
  relayName = name;
}

/** Sets the tab's title to "`what` · relay NAME" while the page shows (nothing set while `what` is undefined). */
export function useTitle(what: string | undefined): void {
  useEffect(() => {
    if (what === undefined) return;
    document.title = [what, relayName ? `relay ${relayName}` : 'relay'].filter((part) => part !== '').join(' · ');
  }, [what]);
}
