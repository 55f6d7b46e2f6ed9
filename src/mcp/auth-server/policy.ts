/**
 * The access policy: who may sign in, and which scopes they get. Default deny.
 *
 * A rule is `WHO=SCOPES`. WHO is `*` (anyone the IdP signs in), `alice@example.com` (a verified
 * email), `*@example.com` (any verified email of that domain), `github-user:LOGIN` or
 * `github-org:ORG` (GitHub sign-in only), or `sub:SUBJECT` (the IdP's subject). SCOPES is `*`
 * or a comma list of scope patterns (`boj:read`, `*:read`), matched as the resource server does.
 * A user gets the union of every rule that names them.
 */
import { isScopeGranted } from "../../core/scopes.ts";

export interface Identity {
  /** Stable, namespaced: `oidc:<sub>` or `github:<id>`. */
  subject: string;
  /** Verified email addresses only, lower-cased. */
  emails: string[];
  /** What the consent and denial pages call the user. */
  displayName: string;
  github?: { login: string; orgs: string[] };
  /** The IdP's own subject. */
  upstreamSubject: string;
}

export type PolicyRule =
  | { kind: "anyone"; scopes: string[] }
  | { kind: "email"; email: string; scopes: string[] }
  | { kind: "domain"; domain: string; scopes: string[] }
  | { kind: "github-user"; login: string; scopes: string[] }
  | { kind: "github-org"; org: string; scopes: string[] }
  | { kind: "sub"; subject: string; scopes: string[] };

export function parsePolicyRule(text: string): PolicyRule {
  const at = text.lastIndexOf("=");
  if (at <= 0 || at === text.length - 1) {
    throw new Error("expected WHO=SCOPES, e.g. alice@example.com=* or *@example.com=boj:read,fs:read");
  }
  const who = text.slice(0, at).trim().toLowerCase();
  const scopes = text
    .slice(at + 1)
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean);
  if (scopes.length === 0 || scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
    throw new Error("SCOPES must be * or a comma list of scopes such as boj:read,*:read");
  }
  if (who === "*") return { kind: "anyone", scopes };
  if (who.startsWith("github-org:") && who.length > 11) return { kind: "github-org", org: who.slice(11), scopes };
  if (who.startsWith("github-user:") && who.length > 12) return { kind: "github-user", login: who.slice(12), scopes };
  if (who.startsWith("sub:") && who.length > 4) return { kind: "sub", subject: text.slice(4, at).trim(), scopes };
  if (/^\*@[a-z0-9.-]+\.[a-z]{2,}$/.test(who)) return { kind: "domain", domain: who.slice(2), scopes };
  if (/^[^\s@*]+@[a-z0-9.-]+\.[a-z]{2,}$/.test(who)) return { kind: "email", email: who, scopes };
  throw new Error("WHO must be *, an email, *@domain, github-user:LOGIN, github-org:ORG or sub:SUBJECT");
}

function ruleMatches(rule: PolicyRule, identity: Identity): boolean {
  switch (rule.kind) {
    case "anyone":
      return true;
    case "email":
      return identity.emails.includes(rule.email);
    case "domain":
      return identity.emails.some((email) => email.endsWith(`@${rule.domain}`));
    case "github-user":
      return identity.github?.login.toLowerCase() === rule.login;
    case "github-org":
      return identity.github?.orgs.includes(rule.org) ?? false;
    case "sub":
      return identity.upstreamSubject === rule.subject;
  }
}

/** The scope patterns the policy grants this user (empty: not allowed in at all). */
export function policyScopes(rules: readonly PolicyRule[], identity: Identity): string[] {
  return [...new Set(rules.filter((rule) => ruleMatches(rule, identity)).flatMap((rule) => rule.scopes))];
}

/** The requested scopes the policy lets this user have. */
export function grantScopes(rules: readonly PolicyRule[], identity: Identity, requested: readonly string[]): string[] {
  const allowed = policyScopes(rules, identity);
  return requested.filter((scope) => isScopeGranted(allowed, scope));
}

/** Whether any rule needs the user's GitHub organisations (asking for `read:org` only then). */
export function needsGithubOrgs(rules: readonly PolicyRule[]): boolean {
  return rules.some((rule) => rule.kind === "github-org");
}
