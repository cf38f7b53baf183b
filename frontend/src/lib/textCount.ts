import type { InputProps } from 'antd';
import { characterCount, cutToLength } from '@joy/domain';

/**
 * The counter under a text field and its limit, in characters as people see them (an emoji is one), the way the
 * server counts them (@joy/domain text.ts); a longer paste is cut to the limit, never inside a character.
 */
export function characterLimit(max: number): NonNullable<InputProps['count']> {
  return { show: true, max, strategy: characterCount, exceedFormatter: (text, config) => cutToLength(text, config.max) };
}
