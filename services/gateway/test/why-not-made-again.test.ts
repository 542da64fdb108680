// Which task a gateway replica makes again when it takes it over from one that stopped (domain/why-not-made-again.ts):
// reads and waits anywhere, send and create_session on this relay unless an effect was begun and not recorded made;
// every other call ends saying it may or may not have taken effect.
import { describe, expect, it } from 'vitest';
import { whyNotMadeAgain } from '../src/domain/why-not-made-again.ts';

const RELAY = 'desk';
const made = { send: { outcome: { messageId: 'm1' } }, count_agent_prompt: { outcome: {} } };

describe('whyNotMadeAgain', () => {
  it('makes again a wait or read, on this relay or a paired one, and a send or create_session here whose effects are recorded made', () => {
    expect(whyNotMadeAgain({ action: 'wait', relay: 'this', session: 's', message_id: 'm' }, {}, RELAY)).toBeUndefined();
    expect(whyNotMadeAgain({ action: 'list_sessions', relay: 'hub' }, {}, RELAY)).toBeUndefined();
    expect(whyNotMadeAgain({ action: 'send', relay: 'this', session: 's', text: 'hi' }, {}, RELAY)).toBeUndefined();
    expect(whyNotMadeAgain({ action: 'send', relay: RELAY, session: 's', text: 'hi' }, made, RELAY)).toBeUndefined();
    expect(whyNotMadeAgain({ action: 'create_session', relay: 'this', text: 'hi' }, { create_session: { outcome: {} } }, RELAY)).toBeUndefined();
  });

  it('ends a send caught between its message and the record of it: it may or may not have been sent', () => {
    const refusal = whyNotMadeAgain({ action: 'send', relay: 'this', session: 's', text: 'hi' }, { count_agent_prompt: { outcome: {} }, send: {} }, RELAY);
    expect(refusal).toContain('at the moment it sent its message: that may or may not have taken effect');
    expect(whyNotMadeAgain({ action: 'create_session', relay: 'this', text: 'hi' }, { create_session: {} }, RELAY)).toContain('created its session');
  });

  it('ends any other write, and a send to a paired relay (its effect is that relay’s), saying so', () => {
    expect(whyNotMadeAgain({ action: 'archive', relay: 'this', session: 's' }, {}, RELAY)).toContain('archive is not made again by another gateway');
    expect(whyNotMadeAgain({ action: 'send', relay: 'hub', session: 's', text: 'hi' }, {}, RELAY)).toContain('may or may not have taken effect');
    expect(whyNotMadeAgain(undefined, {}, RELAY)).toContain('does not say what call it ran');
  });
});
