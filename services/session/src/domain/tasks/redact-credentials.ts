/**
 * Credentials blanked as the task console blanks them (pure): tokens (the relay's own rly_… among them) and API
 * keys, passwords in URLs, Authorization headers, AWS keys, private keys and `password=`-style assignments.
 */

export const REDACTED = '[redacted]';

const RULES: readonly [RegExp, string][] = [
  // A private key block, also one whose end is not in the text.
  [/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g, `-----BEGIN $1PRIVATE KEY----- ${REDACTED} -----END $1PRIVATE KEY-----`],
  // The end of a private key whose start is cut off (the kept output begins inside it): all before its END line.
  [/^(?:(?!-----BEGIN )[\s\S])*?-----END ([A-Z ]*)PRIVATE KEY-----/, `${REDACTED} -----END $1PRIVATE KEY-----`],
  // Authorization / Proxy-Authorization headers, whatever the scheme.
  [/\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token|digest)\s+)?[^\s"',]+/gi, `$1$2${REDACTED}`],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, `Bearer ${REDACTED}`],
  // user:password@ in a URL.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  // AWS access key ids.
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/g, REDACTED],
  // Well-known token shapes: GitHub, OpenAI / Anthropic, Slack, Google, GitLab, npm, JWTs.
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g, REDACTED],
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, REDACTED],
  [/\bglpat-[A-Za-z0-9_-]{20,}\b/g, REDACTED],
  [/\bnpm_[A-Za-z0-9]{36}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // The relay's own tokens: a user's (rly_u_…) or a session's (rly_s_…), the base64url secret after the prefix.
  [/\brly_[a-z]_[A-Za-z0-9_-]{16,}/g, REDACTED],
  // NAME=value and "name": "value" where the name says it is a secret (AWS secret keys included).
  [
    /\b([A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_.-]*)(["']?\s*[:=]\s*)(["']?)(?!\[redacted\])[^\s"',;]+/gi,
    `$1$2$3${REDACTED}`,
  ],
];

/** `text` with every credential it shows replaced by [redacted]. */
export function redactCredentials(text: string): string {
  return RULES.reduce((redacted, [pattern, replacement]) => redacted.replace(pattern, replacement), text);
}
