/**
 * HTML character references as they appear in problem statements (LeetCode writes `&lt;=`,
 * `&nbsp;`, `&times;`, Greek letters and arrows). Unknown names are left as written.
 */
const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0",
  le: "≤", ge: "≥", ne: "≠", times: "×", divide: "÷", minus: "−", plusmn: "±", middot: "·",
  cdot: "⋅", sdot: "⋅", deg: "°", infin: "∞", sum: "∑", prod: "∏", radic: "√", asymp: "≈",
  equiv: "≡", approx: "≈", isin: "∈", notin: "∉", sub: "⊂", sup: "⊃", sube: "⊆", supe: "⊇",
  cap: "∩", cup: "∪", and: "∧", or: "∨", not: "¬", forall: "∀", exist: "∃", empty: "∅",
  lceil: "⌈", rceil: "⌉", lfloor: "⌊", rfloor: "⌋", lang: "⟨", rang: "⟩", prime: "′", Prime: "″",
  larr: "←", rarr: "→", uarr: "↑", darr: "↓", harr: "↔", lArr: "⇐", rArr: "⇒", hArr: "⇔",
  ndash: "–", mdash: "—", hellip: "…", bull: "•", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”",
  laquo: "«", raquo: "»", copy: "©", reg: "®", trade: "™", sect: "§", para: "¶", micro: "µ",
  frac12: "½", frac14: "¼", frac34: "¾", sup2: "²", sup3: "³", sup1: "¹", ensp: "\u2002",
  emsp: "\u2003", thinsp: "\u2009", zwnj: "\u200c", zwj: "\u200d", shy: "\u00ad", dagger: "†",
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", zeta: "ζ", eta: "η", theta: "θ",
  iota: "ι", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", omicron: "ο", pi: "π", rho: "ρ",
  sigma: "σ", tau: "τ", upsilon: "υ", phi: "φ", chi: "χ", psi: "ψ", omega: "ω",
  Alpha: "Α", Beta: "Β", Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Pi: "Π", Sigma: "Σ",
  Phi: "Φ", Psi: "Ψ", Omega: "Ω",
};

/** Named references that HTML also accepts without the closing `;`. */
const LEGACY = new Set(["amp", "lt", "gt", "quot", "nbsp"]);

const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/g;

export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined, semicolon: string) => {
    if (decimal !== undefined || hex !== undefined) {
      const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex as string, 16);
      // Like browsers: NUL, surrogates and out-of-range values become U+FFFD.
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
      return String.fromCodePoint(code);
    }
    const value = NAMED[name as string];
    if (value === undefined) return whole;
    if (semicolon === "" && !LEGACY.has(name as string)) return whole;
    return value;
  });
}
