/**
 * One spelling for series names and queries, so that case, full-width/half-width forms and
 * punctuation do not decide a match: `US.Dollar/Yen` and `us dollar yen`, `ドル・円` and `ドル 円`,
 * `ＵＳＤ`, `ｶﾅ` and full-width spaces all meet. The same function runs over the catalogue when it
 * is indexed and over every query.
 */

/** Anything that is not a letter or a digit separates words. */
const SEPARATORS = /[^\p{L}\p{N}]+/gu;

/**
 * Japanese is written without spaces, and BOJ's names put `・`, `／` or full-width spaces between
 * words that a reader types together (`ドル円`): in a document, a separator between two Japanese
 * characters is dropped, so a query word matches across it.
 */
const BETWEEN_JAPANESE =
  /(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]) (?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー])/gu;

/** NFKC, lower case, punctuation to single spaces. */
function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(SEPARATORS, " ").trim();
}

/** The indexed form of a document's text. */
export function normalizeDocument(...parts: (string | null | undefined)[]): string {
  return parts
    .filter((part): part is string => !!part)
    .map((part) => fold(part).replace(BETWEEN_JAPANESE, ""))
    .join(" ");
}

/** The most words one query is matched with; more adds cost without narrowing much. */
const MAX_QUERY_WORDS = 12;

/** The distinct words of a query, in order, at most MAX_QUERY_WORDS; [] when it holds no letter or digit. */
export function queryWords(query: string): string[] {
  return foldedWords(query).slice(0, MAX_QUERY_WORDS);
}

/** The distinct words of a text, folded as documents are, in order (all of them); [] when it holds no letter or digit. */
export function foldedWords(text: string): string[] {
  return [...new Set(fold(text).split(" ").filter(Boolean))];
}

/**
 * BOJ spells currencies out ("US.Dollar/Yen", "Euro/US.Dollar"), while a model writes their ISO
 * codes ("USD/JPY"): such a query word also matches BOJ's spelling (in the folded form of a
 * document), so the most natural query finds the series instead of nothing.
 */
const CURRENCY_SPELLINGS: Readonly<Record<string, string>> = {
  usd: "us dollar",
  jpy: "yen",
  eur: "euro",
  gbp: "pound",
  cny: "yuan",
  chf: "swiss franc",
  aud: "australian dollar",
  cad: "canadian dollar",
  hkd: "hong kong dollar",
  sgd: "singapore dollar",
  nzd: "new zealand dollar",
  krw: "won",
};

/** What a query word matches in a folded document: itself, and for a currency code BOJ's spelling. */
export function wordAlternatives(word: string): string[] {
  const spelled = Object.hasOwn(CURRENCY_SPELLINGS, word) ? CURRENCY_SPELLINGS[word] : undefined;
  return spelled ? [word, spelled] : [word];
}

/** Characters, not UTF-16 units: the trigram index needs words of at least three. */
export function characters(word: string): number {
  return [...word].length;
}
