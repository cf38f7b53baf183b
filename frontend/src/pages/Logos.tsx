// Logo concepts (SPEC §2): four marks drawn as inline SVG, each with a short description, and the
// Design Philosophy note. Static page, no behaviour.
import { Card, Col, Row } from 'antd';
import type { ComponentType } from 'react';
import { PageHeader } from '../components/PageHeader';
import { HeartCommunityMark, JoyExplorerMark, JoyGaugeNetworkMark, SafariJoyExplorerMark } from '../logos/LogoArt';

interface Concept {
  name: string;
  Mark: ComponentType<{ size?: number }>;
  tone: string;
  description: string;
  keywords: string[];
}

export const LOGO_CONCEPTS: Concept[] = [
  {
    name: 'Safari Joy Explorer',
    Mark: SafariJoyExplorerMark,
    tone: 'sunrise',
    description:
      'A compass badge framing a savanna sunrise. Joy as an expedition: you set out each day, the orange needle points north to what lifts you, and the acacia stands for steady growth in any season.',
    keywords: ['Adventure', 'Warmth', 'Direction'],
  },
  {
    name: 'Joy Explorer',
    Mark: JoyExplorerMark,
    tone: 'trail',
    description:
      'A map pin whose head is a smiling sun, reached by a dotted trail. "Find it" made literal: every rating is a waypoint, and the trail shows how far you have come. Works down to favicon size.',
    keywords: ['Find it', 'Progress', 'Optimism'],
  },
  {
    name: 'Heart & Community',
    Mark: HeartCommunityMark,
    tone: 'heart',
    description:
      'Three people held close inside one heart, the one in front embraced by the two beside. It puts the tribes first: joy measured alone, shared with family and friends, and answered with care when someone needs it.',
    keywords: ['Belonging', 'Care', 'Share it'],
  },
  {
    name: 'Joy Gauge & Network',
    Mark: JoyGaugeNetworkMark,
    tone: 'gauge',
    description:
      'The joy gauge in the five score-band colours, reading high, beneath a small constellation of connected people. "Measure it" and "share it" in one mark — the most product-like of the four.',
    keywords: ['Measure it', 'Connection', 'Clarity'],
  },
];

export default function LogosPage() {
  return (
    <>
      <PageHeader title="Logo Concepts" subtitle="Four directions for Joy's mark — Find It. Measure It. Share It." />
      <ul className="logo-grid">
        {LOGO_CONCEPTS.map(({ name, Mark, tone, description, keywords }) => (
          <li key={name}>
            <Card className={`logo-card logo-card--${tone}`}>
              <div className="logo-card__art">
                <Mark size={180} />
              </div>
              <h2 className="logo-card__name">{name}</h2>
              <p className="logo-card__text">{description}</p>
              <ul className="logo-card__keywords" aria-label={`${name} keywords`}>
                {keywords.map((k) => (
                  <li key={k}>{k}</li>
                ))}
              </ul>
            </Card>
          </li>
        ))}
      </ul>
      <Row>
        <Col span={24}>
          <section className="design-philosophy" aria-labelledby="design-philosophy-title">
            <h2 id="design-philosophy-title">Design Philosophy</h2>
            <p>
              Joy is about noticing the good that is already there, so every concept starts from warmth: the sunrise
              orange of the app, cream backgrounds, and rounded, hand-friendly shapes rather than hard corners. Each mark
              carries one idea of the tagline — finding joy (the explorer marks), sharing it (the heart) or measuring it
              (the gauge) — and stays legible from an app icon to a poster.
            </p>
            <p>
              Colour is never the only carrier of meaning: the gauge reads through its needle, the heart through its
              figures. The marks avoid medical or clinical imagery on purpose — Joy is a companion for reflection, not a
              diagnosis.
            </p>
          </section>
        </Col>
      </Row>
    </>
  );
}
