import { Link } from 'react-router-dom';
import { ProsePage, ProseSection } from '../components/Prose';
import { PREMIUM_PRICE, SUPPORT_EMAIL } from '../lib/site';

const SECTIONS = [
  { id: 'perma', title: 'The PERMA model' },
  { id: 'rating', title: 'How to rate your joy' },
  { id: 'groups', title: 'Using groups' },
  { id: 'care-actions', title: 'Care actions' },
  { id: 'premium', title: 'Joy Premium benefits' },
  { id: 'faq', title: 'Frequently asked questions' },
  { id: 'more-help', title: 'Need more help?' },
];

export default function Help() {
  return (
    <ProsePage
      title="Help & Support"
      subtitle="Everything you need to get the most out of Joy: how rating works, how groups keep you connected, and what stays private."
      sections={SECTIONS}
    >
      <ProseSection id="perma" title="The PERMA model">
        <p>
          Joy is built on PERMA, a model of wellbeing from positive psychology. It describes a good life through
          a handful of building blocks rather than a single mood, so you can see which parts of your life are
          thriving and which could use some care. Joy asks about five factors:
        </p>
        <dl className="prose__terms">
          <dt>Relationships</dt>
          <dd>Feeling connected, supported and loved by family, friends and the people around you.</dd>
          <dt>Health</dt>
          <dd>Your energy, sleep, movement and how your body feels day to day.</dd>
          <dt>Purpose</dt>
          <dd>A sense that what you do matters and belongs to something bigger than yourself.</dd>
          <dt>Growth</dt>
          <dd>Learning, making progress and feeling accomplished, in small steps as well as big ones.</dd>
          <dt>Joy</dt>
          <dd>Positive emotions: delight, gratitude, calm, fun and the moments you want to remember.</dd>
        </dl>
        <p>
          Your <strong>overall joy score</strong> is the average of the five factors, shown with one decimal on a
          scale of 1 to 5.
        </p>
      </ProseSection>

      <ProseSection id="rating" title="How to rate your joy">
        <p>
          On the Home page or your Dashboard, give each factor between one and five stars, then press{' '}
          <strong>Save Rating</strong>. Every factor starts at three stars, and the overall score updates as you
          go.
        </p>
        <ul className="prose__scale">
          <li>
            <strong>1</strong> Very Low
          </li>
          <li>
            <strong>2</strong> Low
          </li>
          <li>
            <strong>3</strong> Moderate
          </li>
          <li>
            <strong>4</strong> High
          </li>
          <li>
            <strong>5</strong> Very High
          </li>
        </ul>
        <h3>Tips for useful ratings</h3>
        <ul>
          <li>Be honest rather than optimistic. A low score is information, not a failure.</li>
          <li>Rate at about the same time each day, for example in the evening, so days are easy to compare.</li>
          <li>Think about the day as a whole, not only the last hour.</li>
          <li>Look at your trends every week or two: patterns matter more than any single day.</li>
          <li>
            You can rate more than once a day if your day changes a lot; each rating is kept and your trends use
            them all.
          </li>
        </ul>
      </ProseSection>

      <ProseSection id="groups" title="Using groups">
        <p>
          Groups (we also call them tribes) are small private circles of family or friends who support each
          other's wellbeing.
        </p>
        <h3>Create a group</h3>
        <ol>
          <li>
            Open the <Link to="/groups">Groups</Link> page and choose <strong>Create Group</strong>.
          </li>
          <li>Give it a name, and a short description if you like, for example "The Garcia family".</li>
          <li>
            Share the group's <strong>invite code</strong> with the people you want to invite, using Copy or
            Share.
          </li>
        </ol>
        <h3>Join a group</h3>
        <p>
          Ask a member for the invite code, open the Groups page, choose <strong>Join Group</strong> and enter the
          code. Codes are not case-sensitive.
        </p>
        <p>
          Inside a group you see each member's name and e-mail address, their <strong>latest overall joy score</strong>, the group's average of
          those scores, and its recent activity: the overall scores of the ratings members make while they are in
          the group, from the day you joined. Your five factor scores are never shown to the group.
        </p>
        <h3>Leave, rename, remove or delete</h3>
        <p>
          Any member can <strong>Leave group</strong> at the bottom of the group's page; on the free plan that frees
          a place. The group's owner (the person who created it, or, once they have left, the longest-standing
          member) can also <strong>Rename group</strong>, <strong>Remove</strong> a member (the invite code they had
          no longer lets them in; a new code from <strong>New invite code</strong> does, and their Groups page tells them
          for 30 days which group they were removed from), and{' '}
          <strong>Delete group</strong>: it then disappears for everyone and its invite code stops working. An owner
          who leaves hands the group on for good: rejoining makes them a member, not its owner. The last member to
          leave deletes the group.
        </p>
      </ProseSection>

      <ProseSection id="care-actions" title="Care actions">
        <p>
          When someone in your group is going through a hard time, a small gesture can mean a lot. With{' '}
          <strong>Joy Premium</strong> you can send a care action to a fellow group member: flowers, a
          handwritten card, a digital gift card or a care package, with an optional personal message. They are
          included in Joy Premium: there is nothing more to pay for them.
        </p>
        <p>
          Joy suggests reaching out when a member's latest overall score is below 3 out of 5. This is a gentle
          prompt to check in, not a medical assessment.
        </p>
      </ProseSection>

      <ProseSection id="premium" title="Joy Premium benefits">
        <p>Joy Premium costs {PREMIUM_PRICE} per month. You can cancel at any time; you keep Premium until the end of the period you have paid for.</p>
        <ul>
          <li>
            <strong>Care actions</strong>: send flowers, cards, gift cards and care packages to group members who
            need support.
          </li>
          <li>
            <strong>Unlimited groups</strong>: the free plan includes up to 3 groups; Premium has no limit.
          </li>
          <li>
            <strong>Advanced analytics</strong>: your full history, per-factor trends over the weeks, weekday
            patterns and a forecast for the coming week.
          </li>
          <li>
            <strong>Priority support</strong>: your questions go to the front of the queue.
          </li>
          <li>
            <strong>Early access</strong> to new features before everyone else.
          </li>
        </ul>
      </ProseSection>

      <ProseSection id="faq" title="Frequently asked questions">
        <h3>Who can see my ratings?</h3>
        <p>
          Your detailed ratings, the five factor scores, are private: only you can see them. Members of your
          groups see only overall scores: your latest one, and those of the ratings you make while you are in the
          group. Never the individual factors. We never sell your data.
        </p>
        <h3>Can I correct or delete a rating?</h3>
        <p>
          Yes. Your Dashboard lists your ratings: <strong>Edit</strong> changes a rating's five factors (it keeps
          its date), <strong>Delete</strong> removes it after you confirm. Your scores, insights and groups follow
          at once.
        </p>
        <h3>How often should I track?</h3>
        <p>
          Once a day works well for most people, and a few times a week is still enough to reveal patterns. What
          matters most is being consistent.
        </p>
        <h3>Can Joy remind me?</h3>
        <p>
          Yes. In Settings, turn on the daily reminder and choose its time; it comes in your time zone, only on
          days you have not rated yet, at most once a day. From that time on, Home shows it too until you rate. To get it as
          a notification, press "Enable reminders on this device" in Settings on each phone or computer and allow
          notifications. If nothing arrives, check that notifications from Joy are allowed in your browser's site
          settings, and that your time zone in Settings is right.
        </p>
        <h3>Can I export my data?</h3>
        <p>
          Yes. On the Account page you can download your data: your profile and settings, every rating with its
          five factors and note, your groups and your care actions, as JSON or CSV. You can also delete your account there.
        </p>
        <h3>Is Joy a medical app?</h3>
        <p>
          No. Joy is a personal wellbeing tool, not a medical device, and it does not diagnose or treat any
          condition. If you are struggling, please talk to a doctor or a mental health professional. If you are in
          immediate danger, contact your local emergency number.
        </p>
      </ProseSection>

      <ProseSection id="more-help" title="Need more help?">
        <p>
          Write to us at <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> and we will reply within two
          working days (Premium members within one). Please tell us what you were trying to do and what happened;
          never send us passwords or payment card numbers.
        </p>
        <p>
          Read how we handle your data in our <Link to="/privacy">Privacy Policy</Link> and the rules of the
          service in our <Link to="/terms">Terms of Service</Link>.
        </p>
      </ProseSection>
    </ProsePage>
  );
}
