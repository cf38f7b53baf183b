import { normalizeInviteCode } from '@joy/domain';
import {
  activeMembersText,
  activityTimestamp,
  averageScoreText,
  createdText,
  freePlanLimitMessage,
  groupAverageBadgeText,
  groupAverageBadgeVariant,
  groupFailureToast,
  hasGroupAverage,
  isNotFoundError,
  latestScoreText,
  leaveGroupText,
  memberInitial,
  memberName,
  memberNamesById,
  recentActivity,
  shareText,
  shareTitle,
  validateCreateGroup,
  validateJoinGroup,
} from './logic';
import { parseApiError } from '../lib/apiError';

const FREE_PLAN = 'Free plan allows up to 3 groups. Upgrade to Joy Premium for unlimited groups.';
const apiError = (status: number, code: string, message: string) => new Error(`${status}: ${JSON.stringify({ statusCode: status, code, message })}`);

describe('memberName and memberInitial', () => {
  it('is the first name, else the e-mail before the @, else Member', () => {
    expect(memberName({ firstName: 'Bea', email: 'bea@example.com' })).toBe('Bea');
    expect(memberName({ firstName: '  ', email: 'sam.lee@example.com' })).toBe('sam.lee');
    expect(memberName({ firstName: null, email: null })).toBe('Member');
    expect(memberName({ firstName: null, email: '@example.com' })).toBe('Member');
    expect(memberName(undefined)).toBe('Member');
  });

  it('gives the capital first letter for the avatar', () => {
    expect(memberInitial({ firstName: 'bea', email: null })).toBe('B');
    expect(memberInitial({ firstName: null, email: 'zoe@example.com' })).toBe('Z');
    expect(memberInitial({ firstName: null, email: null })).toBe('M');
    // A name that starts with an emoji shows the emoji whole, not half of it (a broken "�").
    expect(memberInitial({ firstName: '🌸 Mia', email: null })).toBe('🌸');
    expect(memberInitial({ firstName: '👩🏽‍💻Ana', email: null })).toBe('👩🏽‍💻');
    expect(memberInitial({ firstName: 'éva', email: null })).toBe('É');
  });

  it('maps member ids to names', () => {
    const names = memberNamesById([
      { id: 'u1', firstName: 'Ada', email: 'ada@example.com', profileImageUrl: null, latestScore: 4, isOwner: true },
      { id: 'u2', firstName: null, email: 'bo@example.com', profileImageUrl: null, latestScore: null, isOwner: false },
    ]);
    expect(names.get('u1')).toBe('Ada');
    expect(names.get('u2')).toBe('bo');
    expect(names.get('u3')).toBeUndefined();
  });
});

describe('scores and figures', () => {
  it('shows a latest score to one decimal, or No ratings yet', () => {
    expect(latestScoreText(2)).toBe('2.0');
    expect(latestScoreText(4.25)).toBe('4.3');
    expect(latestScoreText(null)).toBe('No ratings yet');
    expect(latestScoreText(undefined)).toBe('No ratings yet');
  });

  it('has an average only above 0 (the server answers 0 when nobody rated)', () => {
    expect(hasGroupAverage(0)).toBe(false);
    expect(hasGroupAverage(null)).toBe(false);
    expect(hasGroupAverage(Number.NaN)).toBe(false);
    expect(hasGroupAverage(1)).toBe(true);
    expect(averageScoreText(0)).toBe('N/A');
    expect(averageScoreText(3.46)).toBe('3.5');
  });

  it('writes the badge as "x / 5.0", default style at 4 or above, secondary below', () => {
    expect(groupAverageBadgeText(4)).toBe('4.0 / 5.0');
    expect(groupAverageBadgeText(2)).toBe('2.0 / 5.0');
    expect(groupAverageBadgeVariant(5)).toBe('default');
    expect(groupAverageBadgeVariant(4)).toBe('default');
    expect(groupAverageBadgeVariant(3.9)).toBe('secondary');
    expect(groupAverageBadgeVariant(1)).toBe('secondary');
  });

  it('writes active members as "n of m"', () => {
    expect(activeMembersText(1, 2)).toBe('1 of 2');
    expect(activeMembersText(0, 0)).toBe('0 of 0');
  });

  it('keeps the 10 newest ratings, newest first', () => {
    const ratings = Array.from({ length: 12 }, (_, i) => ({
      id: `r${i}`,
      userId: 'u1',
      overallScore: 3,
      createdAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    }));
    const recent = recentActivity(ratings);
    expect(recent).toHaveLength(10);
    expect(recent[0].id).toBe('r11');
    expect(recent[9].id).toBe('r2');
    expect(recentActivity(ratings, 3).map((r) => r.id)).toEqual(['r11', 'r10', 'r9']);
    expect(recentActivity([])).toEqual([]);
  });
});

describe('dates', () => {
  it('writes the Created date', () => {
    expect(createdText('2026-03-05T12:00:00.000Z', 'en-US')).toBe('Created Mar 5, 2026');
    expect(createdText('not a date')).toBe('');
  });

  it('writes an activity timestamp with date and time, in the viewer\'s zone', () => {
    const text = activityTimestamp('2026-03-05T12:00:00.000Z', undefined, 'en-US');
    expect(text).toMatch(/^Mar 5, 2026, \d{1,2}:\d{2}\s?[AP]M$/);
    // Their setting, not the device's: 04:21 in Berlin is the evening before in Los Angeles.
    expect(activityTimestamp('2026-11-28T03:21:00.000Z', 'America/Los_Angeles', 'en-US')).toMatch(/^Nov 27, 2026, 7:21\sPM$/);
    expect(activityTimestamp('nope')).toBe('');
  });
});

describe('share text', () => {
  it('offers the invite code, with where to enter it', () => {
    const group = { name: 'Garcia Family', inviteCode: 'K7PX9QMB' };
    expect(shareText(group)).toBe('Join my group "Garcia Family" on Joy! Use the invite code K7PX9QMB on the Groups page.');
    expect(shareText(group, 'https://joy.example/')).toBe(
      'Join my group "Garcia Family" on Joy! Use the invite code K7PX9QMB on the Groups page at https://joy.example/groups.',
    );
    expect(shareTitle(group)).toBe('Join Garcia Family on Joy');
  });
});

describe('dialog validation', () => {
  it('refuses a blank group name after trimming with the spec toast', () => {
    expect(validateCreateGroup('   ', 'x')).toEqual({
      ok: false,
      toast: { title: 'Error', description: 'Group name is required.', variant: 'destructive' },
    });
  });

  it('trims the name and drops a blank description', () => {
    expect(validateCreateGroup('  Garcia Family ', '  ')).toEqual({ ok: true, value: { name: 'Garcia Family' } });
    expect(validateCreateGroup('Garcia', ' Weekly check-ins ')).toEqual({
      ok: true,
      value: { name: 'Garcia', description: 'Weekly check-ins' },
    });
  });

  it('refuses a blank invite code (or one of dashes only) and sends a good one as issued', () => {
    for (const blank of [' \t ', ' - ']) {
      expect(validateJoinGroup(blank)).toEqual({
        ok: false,
        toast: { title: 'Error', description: 'Invite code is required.', variant: 'destructive' },
      });
    }
    expect(validateJoinGroup(' k7px9qmb ')).toEqual({ ok: true, value: { inviteCode: 'K7PX9QMB' } });
    expect(validateJoinGroup('XCFF-UCGQ')).toEqual({ ok: true, value: { inviteCode: 'XCFFUCGQ' } });
  });

  it('reads an invite code as people write it: spaces and dashes anywhere, any case', () => {
    for (const written of ['XCFF-UCGQ', 'xcff ucgq', ' Xcff - Ucgq ', 'XC-FF-UC-GQ', 'XCFF\u2013UCGQ']) {
      expect(normalizeInviteCode(written)).toBe('XCFFUCGQ');
    }
  });
});

describe('API errors', () => {
  it('takes the status and the server message out of "status: body"', () => {
    expect(parseApiError(apiError(404, 'group.invite_not_found', 'Invite code not found.'))).toEqual({ status: 404, code: 'group.invite_not_found', message: 'Invite code not found.' });
    expect(parseApiError(new Error('500: Internal Server Error'))).toEqual({ status: 500, code: null, message: 'Internal Server Error' });
    expect(parseApiError(new Error('400: {"statusCode":400,"code":"request.invalid","message":["name must be a string"]}'))).toEqual({
      status: 400,
      code: 'request.invalid',
      message: 'name must be a string',
    });
    expect(parseApiError(new Error('Failed to fetch'))).toEqual({ status: null, code: null, message: null });
    expect(parseApiError('nope')).toEqual({ status: null, code: null, message: null });
    expect(isNotFoundError(apiError(404, 'group.not_found', 'Group not found'))).toBe(true);
    expect(isNotFoundError(apiError(500, 'internal', 'boom'))).toBe(false);
  });

  it('recognises the free-plan limit by its code (and not another 403, nor the same words under another code)', () => {
    expect(freePlanLimitMessage(apiError(403, 'plan.group_limit', FREE_PLAN))).toBe(FREE_PLAN);
    expect(freePlanLimitMessage(apiError(403, 'plan.premium_required', 'Forbidden'))).toBeNull();
    expect(freePlanLimitMessage(apiError(409, 'group.already_member', FREE_PLAN))).toBeNull();
    expect(freePlanLimitMessage(null)).toBeNull();
  });

  it('keeps the spec texts and adds the server reason for 400, 404 and 409', () => {
    expect(groupFailureToast('create', apiError(500, 'internal', 'Internal server error'))).toEqual({
      title: 'Error',
      description: 'Failed to create group. Please try again.',
      variant: 'destructive',
    });
    expect(groupFailureToast('create', new Error('Failed to fetch')).description).toBe('Failed to create group. Please try again.');
    expect(groupFailureToast('create', apiError(400, 'request.invalid', 'name must be at most 80 characters')).description).toBe(
      'Failed to create group. Please try again. Name must be at most 80 characters.',
    );
    expect(groupFailureToast('join', apiError(404, 'group.invite_not_found', 'Invite code not found.'))).toEqual({
      title: 'Error',
      description: 'Failed to join group. Please check the invite code. Invite code not found.',
      variant: 'destructive',
    });
    // A code the owner replaced says so, as every not-found answer gives its reason.
    expect(groupFailureToast('join', apiError(404, 'group.invite_replaced', "This invite code was replaced by a new one: ask the group's owner for it.")).description).toBe(
      "Failed to join group. Please check the invite code. This invite code was replaced by a new one: ask the group's owner for it.",
    );
    // A code that works, for a group the person is in: SPEC's words, then why.
    expect(groupFailureToast('join', apiError(409, 'group.already_member', 'You are already a member of this group.'))).toEqual({
      title: 'Error',
      description: 'Failed to join group. Please check the invite code. You are already a member of this group.',
      variant: 'destructive',
    });
    // Paused for too many codes that matched nothing: SPEC's words, then when to try again.
    const limited = 'Joining by invite code is paused for 15 minutes: too many codes sent from your network matched no group.';
    expect(groupFailureToast('join', apiError(429, 'request.rate_limited', limited)).description).toBe(`Failed to join group. Please check the invite code. ${limited}`);
  });

  it('tells a failed new invite code with its own text, and the reason of a refusal', () => {
    expect(groupFailureToast('newInviteCode', apiError(500, 'internal', 'Internal server error')).description).toBe(
      'Failed to change the invite code. Please try again.',
    );
    expect(groupFailureToast('newInviteCode', apiError(403, 'group.owner_only', "Only the group's owner can do this.")).description).toBe(
      "Failed to change the invite code. Please try again. Only the group's owner can do this.",
    );
  });
});

describe('leaving', () => {
  it('says what leaving does: the last member deletes the group, an owner hands it on for good, a member may rejoin', () => {
    expect(leaveGroupText({ memberCount: 1, isOwner: true, nextOwnerName: null })).toBe('You are its only member: leaving deletes the group, and its invite code stops working. This cannot be undone.');
    expect(leaveGroupText({ memberCount: 3, isOwner: true, nextOwnerName: 'Bea' })).toBe('Its members will no longer see your joy, and you will no longer see theirs. Bea becomes its owner; if you rejoin, you will be a member, not the owner.');
    expect(leaveGroupText({ memberCount: 3, isOwner: true, nextOwnerName: null })).toMatch(/The longest-standing member becomes its owner/);
    expect(leaveGroupText({ memberCount: 3, isOwner: false, nextOwnerName: 'Bea' })).toBe('Its members will no longer see your joy, and you will no longer see theirs. You can rejoin with its invite code.');
  });
});
