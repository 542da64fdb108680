// ⏰ drawn as an inline SVG, so it shows the same on a machine without an emoji font (where the character renders
// as an empty box). Screen readers and copied text get the ⏰ character itself.
export function AlarmIcon() {
  return (
    <span class="icon">
      <svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
        <circle cx="12" cy="13" r="7" />
        <path d="M12 9.5V13l2.5 1.5M3.5 7.5a4 4 0 0 1 4-4M20.5 7.5a4 4 0 0 0-4-4M7.5 19l-1.5 2M16.5 19l1.5 2" />
      </svg>
      <span class="visually-hidden">⏰</span>
    </span>
  );
}
