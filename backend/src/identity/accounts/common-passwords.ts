/**
 * Passwords people pick first. A password is refused when it is one of these, or one of these with digits and
 * symbols around it ("Password123!"), or a run of one key or of neighbouring keys. Short entries matter too: they
 * are the stems of longer passwords. (From the public lists of the most common leaked passwords.)
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  'password', 'passw0rd', 'p@ssword', 'p@ssw0rd', 'pass', 'passwort', 'motdepasse', 'contraseña', 'contrasena', 'senha',
  'qwerty', 'qwertz', 'azerty', 'qwertyuiop', 'asdfgh', 'asdfghjkl', 'zxcvbn', 'zxcvbnm', 'qazwsx', '1qaz2wsx', '1qaz2wsx3edc',
  'zaq12wsx', 'zaq1xsw2', '1q2w3e4r', '1q2w3e4r5t', '1q2w3e', 'q1w2e3r4', 'qweasd', 'qweasdzxc', 'asdasd', 'qwe123', 'abc123', 'abcd1234',
  'abcdef', 'abcdefg', 'abcdefgh', 'abcdefghij', 'iloveyou', 'iloveu', 'loveyou', 'letmein', 'letmeinnow', 'welcome', 'welcome1', 'hello',
  'helloworld', 'monkey', 'dragon', 'master', 'shadow', 'sunshine', 'princess', 'football', 'baseball', 'basketball', 'soccer', 'hockey',
  'superman', 'batman', 'spiderman', 'starwars', 'pokemon', 'trustno1', 'freedom', 'whatever', 'michael', 'jennifer', 'jordan', 'michelle',
  'charlie', 'daniel', 'thomas', 'jessica', 'ashley', 'andrew', 'joshua', 'robert', 'matthew', 'nicole', 'hunter', 'ranger', 'buster',
  'tigger', 'summer', 'winter', 'autumn', 'spring', 'flower', 'secret', 'mysecret', 'topsecret', 'computer', 'internet', 'login', 'admin',
  'administrator', 'root', 'toor', 'changeme', 'default', 'guest', 'user', 'test', 'testing', 'tester', 'demo', 'sample', 'example',
  'access', 'mustang', 'harley', 'ferrari', 'corvette', 'mercedes', 'chelsea', 'liverpool', 'arsenal', 'barcelona', 'yankees', 'cowboys',
  'lakers', 'killer', 'pepper', 'ginger', 'cookie', 'chocolate', 'banana', 'orange', 'cheese', 'butterfly', 'angel', 'angels', 'lovely',
  'loveme', 'family', 'friends', 'forever', 'blessed', 'jesus', 'christ', 'heaven', 'money', 'happy', 'happiness', 'smile', 'joy',
  'joyful', 'perma', 'wellbeing', 'qwerty123', 'password1', 'password12', 'password123', 'password1234', 'iloveyou1', 'iloveyou2',
  'princess1', 'sunshine1', 'football1', 'baseball1', 'superman1', 'monkey123', 'dragon123', 'master123', 'welcome123', 'letmein123',
  'admin123', 'root123', 'test123', 'hello123', 'abc12345', 'aa123456', 'a123456', 'a1b2c3', 'a1b2c3d4', 'a1b2c3d4e5', 'zxc123',
  'xxxxxx', 'asdf', 'asdf1234', 'qwer1234', 'q1w2e3r4t5', 'q1w2e3r4t5y6', '1a2b3c4d', '1qazxsw2', 'zaq1zaq1', 'google', 'facebook',
  'instagram', 'twitter', 'youtube', 'linkedin', 'microsoft', 'apple', 'samsung', 'iphone', 'android', 'windows', 'linux', 'ubuntu',
  'matrix', 'phoenix', 'thunder', 'rainbow', 'diamond', 'silver', 'golden', 'purple', 'yellow', 'nothing', 'unknown', 'anything',
  'everything', 'myspace', 'mypassword', 'newpassword', 'oldpassword', 'yourpassword', 'thepassword', 'passwordpassword', 'security',
  'letmein1', 'trustme', 'believe', 'babygirl', 'sweetheart', 'sweetie', 'darling', 'beautiful', 'gorgeous', 'handsome', 'lovers',
]);

/** Rows of a keyboard and the digits, forwards; a password that is a run along one of them is no password. */
const RUNS = ['1234567890', '0987654321', 'qwertyuiopasdfghjklzxcvbnm', '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p', 'abcdefghijklmnopqrstuvwxyz', '01234567890123456789'];

export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return true;
  // The stem without the digits and symbols people add around it.
  const stem = lower.replace(/^[\d\W_]+|[\d\W_]+$/g, '');
  if (stem !== '' && COMMON_PASSWORDS.has(stem)) return true;
  if (new Set(lower).size <= 2) return true; // aaaaaaaaaa, abababababab
  const repeated = (run: string) => run.repeat(Math.ceil(lower.length / run.length) + 1);
  return RUNS.some((run) => repeated(run).includes(lower) || repeated([...run].reverse().join('')).includes(lower));
}
