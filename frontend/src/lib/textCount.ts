import type { InputProps } from 'antd';
import { characterCount, cutToLength, fitsLength } from '@joy/domain';

/**
 * The counter under a text field and its limit, in characters as people see them (an emoji is one), the way the
 * server counts them (@joy/domain text.ts); a longer paste is cut to the limit, never inside a character. A text the
 * server would refuse for its size alone (characters of many combining marks) counts as over the limit, so it is
 * cut too: the field never holds what the server refuses.
 */
export function characterLimit(max: number): NonNullable<InputProps['count']> {
  return {
    show: true,
    max,
    strategy: (text) => (fitsLength(text, max) ? characterCount(text) : Math.max(characterCount(text), max + 1)),
    exceedFormatter: (text, config) => cutToLength(text, config.max),
  };
}
