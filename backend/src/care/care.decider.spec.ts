import { LimitReachedError } from '@joy/domain';
import { expectRefusal } from '../testing/refusals';
import {
  CARE_MESSAGES,
  CareActionCancelled,
  type CareFacts,
  cancelReasonFor,
  CareActionFulfilled,
  CareActionSent,
  CareActionThanked,
  careDecider,
  careDetails,
  CareEvent,
  SendCareAction,
} from './care.decider';

const at = new Date('2026-11-20T08:30:00.000Z');
const given = (events: CareEvent[]) => events.reduce(careDecider.evolve, careDecider.initialState);
const send = (extra: Partial<SendCareAction> = {}): SendCareAction => ({
  type: 'SendCareAction',
  careActionId: 'c1',
  groupId: 'g1',
  senderId: 'ada',
  recipientId: 'bob',
  kind: 'flowers',
  message: '  Thinking of you  ',
  senderIsPremium: true,
  groupMemberIds: ['ada', 'bob', 'cy'],
  recipientAcceptsCare: true,
  recent: { bySender: [], bySenderToRecipient: [], toRecipient: [] },
  at,
  ...extra,
});
const sent: CareActionSent = {
  type: 'CareActionSent',
  data: { careActionId: 'c1', groupId: 'g1', senderId: 'ada', recipientId: 'bob', kind: 'flowers', message: 'Thinking of you', sentAt: at.toISOString() },
};
const fulfilled: CareActionFulfilled = { type: 'CareActionFulfilled', data: { careActionId: 'c1', orderId: 'o1', fulfilledAt: at.toISOString() } };

describe('care decider: sending', () => {
  it('records a premium member’s care for another member, the message trimmed', () => {
    expect(careDecider.decide(send(), given([]))).toEqual([sent]);
  });

  it('records no message as null (absent, null, or only spaces)', () => {
    for (const message of [undefined, null, '   ']) {
      expect(careDecider.decide(send({ message }), given([]))[0].data).toMatchObject({ message: null });
    }
  });

  it('accepts each of the four kinds', () => {
    for (const kind of ['flowers', 'handwritten_card', 'digital_gift_card', 'care_package']) {
      expect(careDecider.decide(send({ kind }), given([]))[0].data).toMatchObject({ kind });
    }
  });

  it('refuses an unknown kind and a message over 500 characters with 400 naming the field', () => {
    for (const kind of ['roses', 'Flowers', '', null, 3, undefined]) {
      expectRefusal(() => careDecider.decide(send({ kind }), given([])), { kind: 'invalid', code: 'care.kind_invalid', message: CARE_MESSAGES.kindInvalid });
    }
    expectRefusal(() => careDecider.decide(send({ message: 'x'.repeat(501) }), given([])), { kind: 'invalid', code: 'care.message_too_long', message: CARE_MESSAGES.messageTooLong });
    expectRefusal(() => careDecider.decide(send({ message: 42 }), given([])), { kind: 'invalid', code: 'care.message_not_text', message: CARE_MESSAGES.messageNotText });
    // 500 after trimming is fine.
    expect(careDecider.decide(send({ message: ` ${'x'.repeat(500)} ` }), given([]))).toHaveLength(1);
  });

  it('refuses a message with a direction override or a control character (the text rule), keeps line breaks and what scripts need', () => {
    const problem = 'message must not contain control or direction-changing characters';
    expectRefusal(() => careDecider.decide(send({ message: 'Get well\u202E soon' }), given([])), { kind: 'invalid', code: 'text.not_clean', message: problem });
    expectRefusal(() => careDecider.decide(send({ message: 'Get\u0007 well' }), given([])), { kind: 'invalid', code: 'text.not_clean', message: problem });
    const [event] = careDecider.decide(send({ message: 'Get well soon,\nAda' }), given([]));
    expect((event as CareActionSent).data.message).toBe('Get well soon,\nAda');
    const [persian] = careDecider.decide(send({ message: 'زود خوب می\u200Cشوی' }), given([]));
    expect((persian as CareActionSent).data.message).toBe('زود خوب می\u200Cشوی');
  });

  it('refuses care to a member who declined care actions with 403', () => {
    expectRefusal(() => careDecider.decide(send({ recipientAcceptsCare: false }), given([])), { kind: 'forbidden', code: 'care.declined', message: 'This member does not accept care actions.' });
  });

  describe('daily limits (a rolling 24 hours)', () => {
    const ago = (minutes: number) => new Date(at.getTime() - minutes * 60_000).toISOString();
    const recent = (extra: Partial<SendCareAction['recent']>) => ({ bySender: [], bySenderToRecipient: [], toRecipient: [], ...extra });
    const limitOf = (command: SendCareAction) => {
      try {
        careDecider.decide(command, given([]));
        return null;
      } catch (err) {
        return err as LimitReachedError;
      }
    };

    it('allows 3 to the same member, then answers 429 until the oldest is a day old', () => {
      expect(limitOf(send({ recent: recent({ bySenderToRecipient: [ago(60), ago(30)], bySender: [ago(60), ago(30)] }) }))).toBeNull();
      const refusal = limitOf(send({ recent: recent({ bySenderToRecipient: [ago(60), ago(30), ago(10)], bySender: [ago(60), ago(30), ago(10)] }) }));
      expect(refusal).toBeInstanceOf(LimitReachedError);
      expect(refusal).toMatchObject({ kind: 'rate_limited', code: 'care.pair_limit', message: CARE_MESSAGES.pairLimit, retryAfterSeconds: 23 * 3600 });
      // Care sent more than a day ago no longer counts.
      expect(limitOf(send({ recent: recent({ bySenderToRecipient: [ago(25 * 60), ago(30), ago(10)] }) }))).toBeNull();
    });

    it('allows 10 in all per sender', () => {
      const ten = Array.from({ length: 10 }, (_, i) => ago(10 + i));
      expect(limitOf(send({ recent: recent({ bySender: ten.slice(1) }) }))).toBeNull();
      expect(limitOf(send({ recent: recent({ bySender: ten }) }))).toMatchObject({ kind: 'rate_limited', code: 'care.sender_limit', message: CARE_MESSAGES.senderLimit });
    });

    it('allows 10 in all per recipient, from everyone', () => {
      const ten = Array.from({ length: 10 }, (_, i) => ago(10 + i));
      expect(limitOf(send({ recent: recent({ toRecipient: ten }) }))).toMatchObject({ kind: 'rate_limited', code: 'care.recipient_limit', message: CARE_MESSAGES.recipientLimit });
    });
  });

  it('refuses a free sender with 403', () => {
    expectRefusal(() => careDecider.decide(send({ senderIsPremium: false }), given([])), { kind: 'forbidden', code: 'plan.premium_required', message: CARE_MESSAGES.premiumOnly });
  });

  it('answers a sender outside the group, and a group that does not exist, with the groups’ 404', () => {
    expectRefusal(() => careDecider.decide(send({ groupMemberIds: ['bob', 'cy'] }), given([])), { kind: 'not_found', code: 'group.not_found', message: 'Group not found' });
    expectRefusal(() => careDecider.decide(send({ groupMemberIds: null }), given([])), { kind: 'not_found', code: 'group.not_found', message: 'Group not found' });
  });

  it('refuses care to oneself, and to someone outside the group, with 400', () => {
    expectRefusal(() => careDecider.decide(send({ recipientId: 'ada' }), given([])), { kind: 'invalid', code: 'care.to_self', message: CARE_MESSAGES.toSelf });
    expectRefusal(() => careDecider.decide(send({ recipientId: 'dan' }), given([])), { kind: 'invalid', code: 'care.recipient_not_member', message: CARE_MESSAGES.recipientNotMember });
  });

  it('never sends the same care action twice', () => {
    expectRefusal(() => careDecider.decide(send(), given([sent])), { kind: 'conflict', code: 'care.already_sent', message: CARE_MESSAGES.alreadySent });
  });

  it('checks the details the same way outside the decider', () => {
    expect(careDetails('care_package', ' hi ')).toEqual({ kind: 'care_package', message: 'hi' });
  });
});

describe('care decider: fulfilment', () => {
  const fulfil = { type: 'FulfilCareAction' as const, careActionId: 'c1', orderId: 'o1', at };

  it('records the order of a sent care action', () => {
    expect(careDecider.decide(fulfil, given([sent]))).toEqual([fulfilled]);
  });

  it('records nothing for a care action already fulfilled (a redelivery)', () => {
    expect(careDecider.decide({ ...fulfil, orderId: 'o2' }, given([sent, fulfilled]))).toEqual([]);
  });

  it('refuses to fulfil a care action that was never sent', () => {
    expectRefusal(() => careDecider.decide(fulfil, given([])), { kind: 'not_found', code: 'care.not_found', message: CARE_MESSAGES.notFound });
  });

  it('folds to the order id', () => {
    expect(given([sent, fulfilled])).toEqual({ status: 'fulfilled', sent: sent.data, orderId: 'o1' });
  });
});

describe('care decider: thanks', () => {
  const later = new Date('2026-11-21T10:00:00.000Z');
  const thank = (userId: string) => ({ type: 'ThankCareAction' as const, careActionId: 'c1', userId, at: later });
  const thanked: CareActionThanked = { type: 'CareActionThanked', data: { careActionId: 'c1', recipientId: 'bob', thankedAt: later.toISOString() } };

  it('records the recipient’s thanks, before or after the fulfilment', () => {
    expect(careDecider.decide(thank('bob'), given([sent]))).toEqual([thanked]);
    expect(careDecider.decide(thank('bob'), given([sent, fulfilled]))).toEqual([thanked]);
  });

  it('refuses a second thanks with 409 and a code of its own', () => {
    for (const history of [[sent, thanked], [sent, thanked, fulfilled], [sent, fulfilled, thanked]]) {
      expectRefusal(() => careDecider.decide(thank('bob'), given(history)), { kind: 'conflict', code: 'care.already_thanked', message: CARE_MESSAGES.alreadyThanked });
    }
  });

  it('answers anyone but the recipient (the sender included) and an unknown care action with 404', () => {
    for (const userId of ['ada', 'cy']) {
      expectRefusal(() => careDecider.decide(thank(userId), given([sent])), { kind: 'not_found', code: 'care.not_found', message: CARE_MESSAGES.notFound });
    }
    expectRefusal(() => careDecider.decide(thank('bob'), given([])), { kind: 'not_found', code: 'care.not_found', message: CARE_MESSAGES.notFound });
  });

  it('keeps the thanks and the order whichever came first, and still fulfils a thanked care action once', () => {
    expect(given([sent, thanked, fulfilled])).toEqual({ status: 'fulfilled', sent: sent.data, orderId: 'o1', thankedAt: later.toISOString() });
    expect(given([sent, fulfilled, thanked])).toEqual({ status: 'fulfilled', sent: sent.data, orderId: 'o1', thankedAt: later.toISOString() });
    const fulfil = { type: 'FulfilCareAction' as const, careActionId: 'c1', orderId: 'o1', at };
    expect(careDecider.decide(fulfil, given([sent, thanked]))).toEqual([fulfilled]);
    expect(careDecider.decide(fulfil, given([sent, thanked, fulfilled]))).toEqual([]);
  });
});

describe('care decider: looking again before ordering', () => {
  const cancel = { type: 'CancelCareAction' as const, careActionId: 'c1', reason: 'recipient_declined' as const, at };
  const cancelled: CareActionCancelled = { type: 'CareActionCancelled', data: { careActionId: 'c1', reason: 'recipient_declined', cancelledAt: at.toISOString() } };
  const fine: CareFacts = { recipient: { deleted: false, acceptsCare: true, inGroup: true }, sender: { deleted: false, inGroup: true }, groupDeleted: false };

  it('lets care go while the rules of sending still hold, and names the first that no longer does', () => {
    expect(cancelReasonFor(fine)).toBeNull();
    expect(cancelReasonFor({ ...fine, recipient: { ...fine.recipient, acceptsCare: false } })).toBe('recipient_declined');
    expect(cancelReasonFor({ ...fine, recipient: { ...fine.recipient, inGroup: false } })).toBe('left_group');
    expect(cancelReasonFor({ ...fine, sender: { ...fine.sender, inGroup: false } })).toBe('left_group');
    expect(cancelReasonFor({ ...fine, groupDeleted: true })).toBe('left_group');
    // A deleted account leaves its groups too: it is named as the deletion.
    expect(cancelReasonFor({ ...fine, recipient: { deleted: true, acceptsCare: true, inGroup: false } })).toBe('account_deleted');
    expect(cancelReasonFor({ ...fine, sender: { deleted: true, inGroup: false } })).toBe('account_deleted');
  });

  it('records the cancellation of a care action not yet ordered, once', () => {
    expect(careDecider.decide(cancel, given([sent]))).toEqual([cancelled]);
    expect(given([sent, cancelled])).toEqual({ status: 'cancelled', sent: sent.data, reason: 'recipient_declined' });
    expect(careDecider.decide(cancel, given([sent, cancelled]))).toEqual([]);
  });

  it('never cancels what was ordered, and never orders what was cancelled', () => {
    expect(careDecider.decide(cancel, given([sent, fulfilled]))).toEqual([]);
    expect(careDecider.decide({ type: 'FulfilCareAction', careActionId: 'c1', orderId: 'o1', at }, given([sent, cancelled]))).toEqual([]);
    expectRefusal(() => careDecider.decide(cancel, given([])), { kind: 'not_found', code: 'care.not_found', message: CARE_MESSAGES.notFound });
  });

  it('answers thanks for a cancelled care action with 404, as the recipient never saw it', () => {
    const thank = { type: 'ThankCareAction' as const, careActionId: 'c1', userId: 'bob', at };
    expectRefusal(() => careDecider.decide(thank, given([sent, cancelled])), { kind: 'not_found', code: 'care.not_found', message: CARE_MESSAGES.notFound });
  });
});
