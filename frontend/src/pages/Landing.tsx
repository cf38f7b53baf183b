import {
  DollarOutlined,
  HeartOutlined,
  HomeOutlined,
  PlayCircleOutlined,
  SmileOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { Button } from 'antd';
import { useEffect, type ReactNode } from 'react';
import { PublicTopBar } from '../components/PublicLayout';
import { SignInButton } from '../components/SignInButton';
import { SiteFooter } from '../components/SiteFooter';

const PILLARS: ReadonlyArray<{ title: string; icon: ReactNode; text: string; tone: string }> = [
  {
    title: 'Family',
    icon: <HomeOutlined />,
    tone: 'rose',
    text: 'The people you come home to. Notice the moments that bring you closer and the weeks that pull you apart.',
  },
  {
    title: 'Friends',
    icon: <TeamOutlined />,
    tone: 'amber',
    text: 'Laughter, support and shared adventures. See how time with friends lifts your mood, and invite them along.',
  },
  {
    title: 'Health',
    icon: <HeartOutlined />,
    tone: 'green',
    text: 'Sleep, movement and energy. Small daily check-ins reveal how your body and your happiness move together.',
  },
  {
    title: 'Well-being',
    icon: <SmileOutlined />,
    tone: 'sky',
    text: 'Purpose, growth and everyday delight. Track what gives your days meaning and make room for more of it.',
  },
  {
    title: 'Finances',
    icon: <DollarOutlined />,
    tone: 'violet',
    text: 'Peace of mind about money shapes everything else. Spot the link between financial calm and your joy.',
  },
];

const COUNTERS = [
  { value: '2,847', label: 'Happy users' },
  { value: '421', label: 'Joy groups' },
  { value: '15,892', label: 'Joy ratings' },
];

/** Decorative sample of the joy gauge for the hero. */
function HeroGauge() {
  return (
    <div className="hero-card" aria-hidden="true">
      <p className="hero-card__label">Today's joy</p>
      <svg viewBox="0 0 200 120" className="hero-card__gauge">
        <path d="M20 110a80 80 0 0 1 160 0" fill="none" stroke="#fde3cf" strokeWidth="16" strokeLinecap="round" />
        <path d="M20 110a80 80 0 0 1 146-46" fill="none" stroke="url(#heroGrad)" strokeWidth="16" strokeLinecap="round" />
        <defs>
          <linearGradient id="heroGrad" x1="0" x2="1">
            <stop offset="0" stopColor="#f59e0b" />
            <stop offset="1" stopColor="#15803d" />
          </linearGradient>
        </defs>
        <text x="100" y="100" textAnchor="middle" className="hero-card__score">
          4.2
        </text>
      </svg>
      <p className="hero-card__band">Great Joy!</p>
      <ul className="hero-card__bars">
        {[
          ['Relationships', 5],
          ['Health', 4],
          ['Purpose', 4],
          ['Growth', 3],
          ['Joy', 5],
        ].map(([label, value]) => (
          <li key={label}>
            <span>{label}</span>
            <span className="hero-card__bar">
              <span style={{ width: `${(Number(value) / 5) * 100}%` }} />
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export default function Landing() {
  useEffect(() => {
    document.title = 'Joy — Find It. Measure It. Share It.';
  }, []);

  return (
    <div className="shell landing">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <PublicTopBar />
      <main id="main" tabIndex={-1}>
        <section className="hero" aria-labelledby="hero-title">
          <div className="hero__inner">
            <div className="hero__copy">
              <p className="hero__eyebrow">Your daily happiness tracker</p>
              <h1 id="hero-title" className="hero__title">
                Discover what truly makes you <span className="hero__accent">happy</span>
              </h1>
              <p className="hero__tagline">Find It. Measure It. Share It.</p>
              <p className="hero__lead">
                Joy is built on the PERMA model of wellbeing. Rate five parts of your life in under a minute, watch
                your trends grow clearer week by week, and cheer each other on in private groups with the people
                you love.
              </p>
              <div className="hero__actions">
                <SignInButton type="primary" size="large" signup>
                  Get Started Free
                </SignInButton>
                {/* The spec shows no behaviour for these two; buttons that did nothing looked broken (a review,
                    11-27): the demo is the help page's walk through a rating, Learn More the pillars below. */}
                <Button size="large" icon={<PlayCircleOutlined aria-hidden="true" />} href="/help#rating">
                  Watch Demo
                </Button>
                <Button size="large" type="text" className="hero__learn" href="#pillars">
                  Learn More
                </Button>
              </div>
              <p className="hero__note">Free forever for personal tracking. No credit card needed.</p>
            </div>
            <HeroGauge />
          </div>
        </section>

        <section className="pillars" id="pillars" aria-labelledby="pillars-title">
          <div className="section__inner">
            <h2 id="pillars-title" className="section__title">
              5 Pillars of Joy
            </h2>
            <p className="section__lead">
              Happiness isn't one thing. Joy helps you see the whole picture of a good life, one honest check-in at
              a time.
            </p>
            <ul className="pillars__grid">
              {PILLARS.map((pillar) => (
                <li key={pillar.title} className={`pillar pillar--${pillar.tone}`}>
                  <span className="pillar__icon" aria-hidden="true">
                    {pillar.icon}
                  </span>
                  <h3 className="pillar__title">{pillar.title}</h3>
                  <p className="pillar__text">{pillar.text}</p>
                </li>
              ))}
            </ul>
          </div>
        </section>

        <section className="cta" aria-labelledby="cta-title">
          <div className="section__inner">
            <h2 id="cta-title" className="section__title cta__title">
              Start your joy journey today
            </h2>
            <p className="cta__lead">
              Join people who are learning what lifts them up, and sharing it with the ones who matter most.
            </p>
            <dl className="cta__counters">
              {COUNTERS.map((counter) => (
                <div key={counter.label} className="cta__counter">
                  <dt>{counter.label}</dt>
                  <dd>{counter.value}</dd>
                </div>
              ))}
            </dl>
            <SignInButton size="large" className="cta__button" signup>
              Sign Up
            </SignInButton>
            <p className="cta__note">Sign up securely through our identity provider. It takes less than a minute.</p>
          </div>
        </section>
      </main>
      <SiteFooter />
    </div>
  );
}
