import { CARE_KIND_LABELS, CARE_KINDS } from '@joy/domain';
import { CARE_FAILED_TOAST, careFailedToast, careMessage, careSentToast, kindLabel, receivedTitle, receivedWhen, statusText, suggestionText, cancelledText } from './logic';

describe('care logic', () => {
  it('has the four kinds with their labels', () => {
    expect(CARE_KINDS.map((k) => CARE_KIND_LABELS[k])).toEqual(['Flowers', 'Handwritten card', 'Digital gift card', 'Care package']);
    expect(kindLabel('nonsense')).toBe('Care action');
  });

  it('words the suggestion and the toasts', () => {
    expect(suggestionText('Bob')).toBe('Bob could use some support');
    expect(careSentToast('Bob', 'flowers')).toEqual({ title: 'Care sent!', description: 'Bob will receive your flowers.', variant: 'success' });
    expect(careSentToast('Bob', 'digital_gift_card').description).toBe('Bob will receive your digital gift card.');
    expect(CARE_FAILED_TOAST).toEqual({ title: 'Error', description: 'Failed to send care action. Please try again.', variant: 'destructive' });
  });

  it('sends a trimmed message, or none', () => {
    expect(careMessage('  hi  ')).toBe('hi');
    expect(careMessage('   ')).toBeUndefined();
  });

  it('tells who sent what, and when', () => {
    expect(receivedTitle({ kind: 'care_package', senderFirstName: 'Ada' })).toBe('Care package from Ada');
    expect(receivedTitle({ kind: 'flowers', senderFirstName: null })).toBe('Flowers from A member of your group');
    const now = new Date(2026, 2, 7, 15, 0);
    expect(receivedWhen(new Date(2026, 2, 7, 9, 0).toISOString(), now)).toBe('Today');
    expect(receivedWhen(new Date(2026, 2, 6, 23, 0).toISOString(), now)).toBe('Yesterday');
    expect(receivedWhen(new Date(2026, 1, 1, 9, 0).toISOString(), now)).toMatch(/2026/);
    expect(receivedWhen('nope', now)).toBe('');
    expect(statusText('sent')).toBe('Being ordered');
    expect(statusText('fulfilled')).toBe('Ordered');
    expect(statusText('cancelled')).toBe('Not sent');
  });

  it('says why care was not sent, naming the member when their name is known', () => {
    expect(cancelledText({ cancelReason: 'recipient_declined', recipientFirstName: 'Bob' })).toBe('Bob stopped accepting care actions before it could be ordered. Nothing was ordered.');
    expect(cancelledText({ cancelReason: 'recipient_declined', recipientFirstName: null })).toBe('This member stopped accepting care actions before it could be ordered. Nothing was ordered.');
    expect(cancelledText({ cancelReason: 'left_group', recipientFirstName: 'Bob' })).toBe('You and Bob no longer share the group it was sent in. Nothing was ordered.');
    expect(cancelledText({ cancelReason: 'account_deleted', recipientFirstName: null })).toBe('The account it was sent to was deleted before it could be ordered. Nothing was ordered.');
  });

  it('shows the server\'s reason when a send is refused for one the sender can act on (declined, a daily limit)', () => {
    const declined = new Error('403: {"statusCode":403,"code":"care.declined","message":"This member does not accept care actions."}');
    expect(careFailedToast(declined)).toEqual({ title: 'Care not sent', description: 'This member does not accept care actions.', variant: 'destructive' });
    const limited = new Error('429: {"statusCode":429,"code":"care.sender_limit","message":"You can send at most 10 care actions in 24 hours. Please wait before sending another."}');
    expect(careFailedToast(limited).description).toMatch(/^You can send at most 10/);
    expect(careFailedToast(new Error('500: {"statusCode":500,"code":"internal","message":"Internal server error"}'))).toEqual(CARE_FAILED_TOAST);
    expect(careFailedToast(new Error('429: not json'))).toEqual(CARE_FAILED_TOAST);
    // A refusal of the message itself: the spec's text, then the server's reason.
    const tooLong = new Error('400: {"statusCode":400,"code":"care.message_too_long","message":"message must be at most 500 characters"}');
    expect(careFailedToast(tooLong).description).toBe('Failed to send care action. Please try again. Message must be at most 500 characters.');
  });
});
