import { Progress, theme, Typography } from 'antd';
import { formatScore, scoreBand, scorePercent } from '../lib/score';

interface JoyGaugeProps {
  /** Overall score, 1–5. */
  score: number;
  /** Diameter in pixels (default 200). */
  size?: number;
  /** Optional line under the band message, e.g. when the rating was made. */
  caption?: string;
}

/** The joy gauge: the overall score as a dashboard dial (score ÷ 5) with its band message and colour. */
export function JoyGauge({ score, size = 200, caption }: JoyGaugeProps) {
  const band = scoreBand(score);
  const { token } = theme.useToken();
  return (
    <div className="joy-gauge" role="group" aria-label={`Overall joy score ${formatScore(score)} out of 5: ${band.message}`}>
      <Progress
        aria-label={`Joy gauge: ${formatScore(score)} out of 5`}
        type="dashboard"
        percent={scorePercent(score)}
        size={size}
        strokeWidth={9}
        strokeColor={band.color}
        format={() => (
          <span className="joy-gauge__value" aria-hidden="true">
            <span className="joy-gauge__score">{formatScore(score)}</span>
            <span className="joy-gauge__of">/ 5</span>
          </span>
        )}
      />
      {/* The band's words ("Moderate Joy") describe the dial; they head no section, so they are no heading (axe
          heading-order: an h4 under the card's h2). Written with the look of a level-4 title. */}
      <Typography.Text
        className="joy-gauge__band"
        style={{ color: band.color, fontSize: token.fontSizeHeading4, lineHeight: token.lineHeightHeading4, fontWeight: token.fontWeightStrong, margin: '4px 0 0' }}
      >
        {band.message}
      </Typography.Text>
      {caption && <Typography.Text type="secondary">{caption}</Typography.Text>}
    </div>
  );
}
