/** A YAML bomb for the tests of every YAML reader. */

/** The "billion laughs": nine levels of nine aliases each, 9^9 strings once expanded. */
export const YAML_BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  .concat(
    'bcdefghi'.split('').map((c, i) => {
      const prev = 'abcdefghi'[i]!;
      return `${c}: &${c} [${Array(9).fill(`*${prev}`).join(',')}]`;
    }),
  )
  .join('\n');
