/**
 * The four logo concepts as inline SVG artwork (200 × 200). Each mark is an `img` with its own title; ids
 * are prefixed per concept so several marks can share a page.
 */

const INK = '#2f241d';
const PRIMARY = '#c8501c';
const CREAM = '#fff8f1';

/** A point on a circle: angle in degrees, 0 = right, counter-clockwise, y down as in SVG. */
function polar(cx: number, cy: number, r: number, deg: number): [number, number] {
  const rad = (deg * Math.PI) / 180;
  return [Math.round((cx + r * Math.cos(rad)) * 10) / 10, Math.round((cy - r * Math.sin(rad)) * 10) / 10];
}

function arc(cx: number, cy: number, r: number, from: number, to: number): string {
  const [x1, y1] = polar(cx, cy, r, from);
  const [x2, y2] = polar(cx, cy, r, to);
  return `M${x1} ${y1} A${r} ${r} 0 0 1 ${x2} ${y2}`;
}

/** Safari Joy Explorer: a compass-ringed badge holding a savanna sunrise with an acacia tree. */
export function SafariJoyExplorerMark({ size = 200 }: { size?: number }) {
  const ticks = Array.from({ length: 24 }, (_, i) => i * 15).filter((d) => d % 90 !== 0);
  return (
    <svg viewBox="0 0 200 200" width={size} height={size} role="img" aria-labelledby="sje-title">
      <title id="sje-title">Safari Joy Explorer: a compass badge framing a sunrise over savanna hills and an acacia tree</title>
      <defs>
        <linearGradient id="sje-sky" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor="#fde68a" />
          <stop offset="0.55" stopColor="#f59e0b" />
          <stop offset="1" stopColor="#c8501c" />
        </linearGradient>
        <clipPath id="sje-window">
          <circle cx="100" cy="100" r="70" />
        </clipPath>
      </defs>
      <circle cx="100" cy="100" r="94" fill={CREAM} stroke={INK} strokeWidth="4" />
      {ticks.map((d) => {
        const [x1, y1] = polar(100, 100, 86, d);
        const [x2, y2] = polar(100, 100, d % 45 === 0 ? 78 : 81, d);
        return <line key={d} x1={x1} y1={y1} x2={x2} y2={y2} stroke={INK} strokeWidth={d % 45 === 0 ? 2.5 : 1.5} strokeLinecap="round" />;
      })}
      {/* Cardinal points; north is the joy-orange needle. */}
      <path d="M100 4 L108 20 L100 16 L92 20 Z" fill={PRIMARY} />
      <path d="M196 100 L182 106 L185 100 L182 94 Z" fill={INK} />
      <path d="M100 196 L94 182 L100 185 L106 182 Z" fill={INK} />
      <path d="M4 100 L18 94 L15 100 L18 106 Z" fill={INK} />
      <g clipPath="url(#sje-window)">
        <rect x="20" y="20" width="160" height="160" fill="url(#sje-sky)" />
        <circle cx="92" cy="124" r="40" fill="#fff3c4" opacity="0.35" />
        <circle cx="92" cy="124" r="27" fill="#fff3c4" />
        <path d="M62 76 q5 -6 10 0 q5 -6 10 0" fill="none" stroke="#7c2d12" strokeWidth="2.2" strokeLinecap="round" />
        <path d="M84 64 q3.5 -4 7 0 q3.5 -4 7 0" fill="none" stroke="#7c2d12" strokeWidth="1.8" strokeLinecap="round" />
        <path d="M20 138 Q58 114 98 130 T182 122 V182 H20 Z" fill="#b4461a" />
        <path d="M20 154 Q72 134 118 150 T182 144 V182 H20 Z" fill="#6b2a0e" />
        <g stroke="#3b1a08" strokeLinecap="round" fill="none">
          <path d="M140 149 L142 120" strokeWidth="4" />
          <path d="M142 126 L131 110 M142 124 L154 109 M142 122 L143 108" strokeWidth="2.5" />
        </g>
        <ellipse cx="143" cy="106" rx="25" ry="6" fill="#3b1a08" />
        <ellipse cx="134" cy="101.5" rx="13" ry="4.5" fill="#3b1a08" />
        <ellipse cx="153" cy="102" rx="10" ry="4" fill="#3b1a08" />
      </g>
      <circle cx="100" cy="100" r="70" fill="none" stroke={INK} strokeWidth="3" />
    </svg>
  );
}

/** Joy Explorer: a map pin whose head is a smiling sun, reached by a dotted trail. */
export function JoyExplorerMark({ size = 200 }: { size?: number }) {
  const rays = [180, 210, 240, 270, 300, 330, 0];
  return (
    <svg viewBox="0 0 200 200" width={size} height={size} role="img" aria-labelledby="je-title">
      <title id="je-title">Joy Explorer: a map pin with a smiling sun for its head, at the end of a dotted trail</title>
      <defs>
        <linearGradient id="je-pin" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#f59e0b" />
          <stop offset="1" stopColor="#c8501c" />
        </linearGradient>
      </defs>
      <path
        d="M18 186 C 46 188, 40 160, 62 162 S 86 182, 100 176"
        fill="none"
        stroke="#0f766e"
        strokeWidth="4"
        strokeLinecap="round"
        strokeDasharray="0.5 9"
      />
      <circle cx="18" cy="186" r="5" fill="#0f766e" />
      <ellipse cx="100" cy="177" rx="20" ry="4.5" fill={INK} opacity="0.16" />
      {rays.map((d) => {
        const [x1, y1] = polar(100, 82, 56, d);
        const [x2, y2] = polar(100, 82, 68, d);
        return <line key={d} x1={x1} y1={y1} x2={x2} y2={y2} stroke="#f59e0b" strokeWidth="5" strokeLinecap="round" />;
      })}
      <path d="M100 174 C 86 148, 56 120, 56 84 A44 44 0 1 1 144 84 C 144 120, 114 148, 100 174 Z" fill="url(#je-pin)" />
      <path d="M70 60 A36 36 0 0 1 92 44" fill="none" stroke="#fff" strokeOpacity="0.45" strokeWidth="5" strokeLinecap="round" />
      <circle cx="100" cy="84" r="28" fill={CREAM} />
      <g fill="none" stroke={PRIMARY} strokeWidth="4" strokeLinecap="round">
        <path d="M87 80 q5 -6 10 0" />
        <path d="M103 80 q5 -6 10 0" />
        <path d="M86 91 q14 14 28 0" />
      </g>
    </svg>
  );
}

/** Heart & Community: three people held close inside one heart. */
export function HeartCommunityMark({ size = 200 }: { size?: number }) {
  const heart = 'M100 176 C 40 134, 14 100, 24 66 C 34 32, 80 24, 100 58 C 120 24, 166 32, 176 66 C 186 100, 160 134, 100 176 Z';
  return (
    <svg viewBox="0 0 200 200" width={size} height={size} role="img" aria-labelledby="hc-title">
      <title id="hc-title">Heart and Community: three people side by side inside a heart</title>
      <defs>
        <linearGradient id="hc-heart" x1="0" y1="0" x2="0.6" y2="1">
          <stop offset="0" stopColor="#f43f5e" />
          <stop offset="1" stopColor="#c8501c" />
        </linearGradient>
      </defs>
      <path d={heart} fill="url(#hc-heart)" />
      <path d="M40 60 C 46 42, 66 38, 78 46" fill="none" stroke="#fff" strokeOpacity="0.4" strokeWidth="5" strokeLinecap="round" />
      {/* Two friends, then the person in the middle drawn over them with a heart-coloured outline. */}
      <g fill="#fff">
        <circle cx="63" cy="93" r="11" />
        <path d="M43 140 C 43 121, 51 110, 63 110 C 75 110, 83 121, 83 140 Q 63 146 43 140 Z" />
        <circle cx="137" cy="93" r="11" />
        <path d="M117 140 C 117 121, 125 110, 137 110 C 149 110, 157 121, 157 140 Q 137 146 117 140 Z" />
      </g>
      <g fill="#fff" stroke="#e2453a" strokeWidth="4">
        <circle cx="100" cy="80" r="14" />
        <path d="M74 146 C 74 118, 85 101, 100 101 C 115 101, 126 118, 126 146 Q 100 154 74 146 Z" />
      </g>
      <path d="M166 22 l3 8 l8 3 l-8 3 l-3 8 l-3 -8 l-8 -3 l8 -3 Z" fill="#f59e0b" />
      <path d="M186 50 l2 5 l5 2 l-5 2 l-2 5 l-2 -5 l-5 -2 l5 -2 Z" fill="#f59e0b" />
    </svg>
  );
}

/** Joy Gauge & Network: the five-band joy gauge, its needle high, under a constellation of connected people. */
export function JoyGaugeNetworkMark({ size = 200 }: { size?: number }) {
  const cx = 100;
  const cy = 132;
  const bands = ['#b91c1c', '#c2410c', '#a16207', '#4d7c0f', '#047857'];
  const segments = bands.map((color, i) => ({ color, d: arc(cx, cy, 64, 178 - i * 36, 146 - i * 36) }));
  const needleAngle = 180 - ((4.3 - 1) / 4) * 180;
  const tip = polar(cx, cy, 50, needleAngle);
  const left = polar(cx, cy, 7, needleAngle + 90);
  const right = polar(cx, cy, 7, needleAngle - 90);
  const tail = polar(cx, cy, 14, needleAngle + 180);
  const nodes = [162, 126, 90, 54, 18].map((d) => polar(cx, cy, 90, d));
  const links: Array<[number, number]> = [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 4],
    [1, 3],
  ];
  return (
    <svg viewBox="0 0 200 200" width={size} height={size} role="img" aria-labelledby="jgn-title">
      <title id="jgn-title">Joy Gauge and Network: a five-colour joy gauge reading high, beneath five connected people</title>
      <g stroke="#d6bfae" strokeWidth="2">
        {links.map(([a, b]) => (
          <line key={`${a}-${b}`} x1={nodes[a][0]} y1={nodes[a][1]} x2={nodes[b][0]} y2={nodes[b][1]} />
        ))}
      </g>
      <g stroke="#e8d8cb" strokeWidth="1.5" strokeDasharray="2 4">
        {nodes.map(([x, y], i) => (
          <line key={i} x1={x} y1={y} x2={cx} y2={cy} />
        ))}
      </g>
      {segments.map((s) => (
        <path key={s.color} d={s.d} fill="none" stroke={s.color} strokeWidth="16" />
      ))}
      <path d={arc(cx, cy, 46, 180, 0)} fill="none" stroke="#f1dfd0" strokeWidth="2" />
      <polygon points={`${tip.join(',')} ${left.join(',')} ${tail.join(',')} ${right.join(',')}`} fill={INK} />
      <circle cx={cx} cy={cy} r="9" fill={INK} />
      <circle cx={cx} cy={cy} r="3.5" fill={CREAM} />
      {nodes.map(([x, y], i) => (
        <g key={i}>
          <circle cx={x} cy={y} r="10" fill="#fff" stroke={i === 3 ? PRIMARY : INK} strokeWidth="3" />
          <circle cx={x} cy={y - 2.5} r="3" fill={i === 3 ? PRIMARY : INK} />
          <path d={`M${x - 5} ${y + 6} q5 -7 10 0`} fill={i === 3 ? PRIMARY : INK} />
        </g>
      ))}
      <rect x="56" y="150" width="88" height="30" rx="15" fill={PRIMARY} />
      <text x="100" y="171" textAnchor="middle" fontSize="17" fontWeight="800" fill="#fff" fontFamily="Inter, system-ui, sans-serif">
        4.3 / 5
      </text>
    </svg>
  );
}
